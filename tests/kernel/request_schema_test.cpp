// The request field types the wire guard checks before xeus, which throws (and never
// answers) on a field of the wrong type.
#include <gtest/gtest.h>

#include "request_schema.hpp"

using nlohmann::json;
using xcuda::kernel::expects_reply;
using xcuda::kernel::field_type_problem;

TEST(RequestSchema, WellTypedAndMissingFieldsPass)
{
    EXPECT_EQ(field_type_problem("execute_request",
                                 json{{"code", "1"}, {"silent", false}, {"user_expressions", json::object()}}),
              "");
    EXPECT_EQ(field_type_problem("execute_request", json::object()), "");  // xeus takes the defaults
    EXPECT_EQ(field_type_problem("complete_request", json{{"code", "x"}, {"cursor_pos", 1}}), "");
    EXPECT_EQ(field_type_problem("some_future_request", json{{"code", 1}}), "");  // not ours to judge
}

TEST(RequestSchema, AWrongTypeNamesTheFieldAndWhatItMustBe)
{
    EXPECT_EQ(field_type_problem("execute_request", json{{"code", 123}}),
              "execute_request: 'code' must be a string, not integer");
    EXPECT_EQ(field_type_problem("complete_request", json{{"cursor_pos", 1.5}}),
              "complete_request: 'cursor_pos' must be an integer, not number");
    EXPECT_EQ(field_type_problem("comm_msg", json{{"data", "x"}}), "comm_msg: 'data' must be an object, not string");
    EXPECT_EQ(field_type_problem("shutdown_request", json{{"restart", nullptr}}),
              "shutdown_request: 'restart' must be true or false, not null");
}

TEST(RequestSchema, OnlyRequestsExpectAReply)
{
    EXPECT_TRUE(expects_reply("execute_request"));
    EXPECT_TRUE(expects_reply("kernel_info_request"));
    EXPECT_FALSE(expects_reply("comm_msg"));
    EXPECT_FALSE(expects_reply("input_reply"));
    EXPECT_FALSE(expects_reply("_request"));
}
