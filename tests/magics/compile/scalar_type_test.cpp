#include "xcuda/compile/scalar_type.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

TEST(ScalarType, EachSpellingOfATypeGivesItsScalar) {
    EXPECT_EQ(scalar_from_type("unsigned long int"), ScalarType::uint64);
    EXPECT_EQ(scalar_from_type("long unsigned"), ScalarType::uint64);
    EXPECT_EQ(scalar_from_type("const volatile int"), ScalarType::int32);
    EXPECT_EQ(scalar_from_type("std::uint16_t"), ScalarType::uint16);
    EXPECT_EQ(scalar_from_type("__nv_bfloat16"), ScalarType::bfloat16);
    EXPECT_EQ(scalar_from_type("signed"), ScalarType::int32);
    EXPECT_EQ(scalar_from_type("short unsigned int"), ScalarType::uint16);
    EXPECT_EQ(scalar_from_type("long char"), ScalarType::none);
    EXPECT_EQ(scalar_from_type("float4"), ScalarType::none);
    EXPECT_EQ(scalar_from_type("void"), ScalarType::none);
}

TEST(ScalarType, NamesAreNumpysAndSizesAreBytes) {
    EXPECT_STREQ(scalar_name(ScalarType::float16), "float16");
    EXPECT_EQ(scalar_size(ScalarType::bfloat16), 2u);
    EXPECT_EQ(scalar_size(ScalarType::uint64), 8u);
}
