#include "execution_history.hpp"

#include <gtest/gtest.h>

namespace
{
    using xcuda::kernel::execution_history;

    nl::json request(nl::json fields)
    {
        fields["raw"] = true;
        return fields;
    }

    class history_of_three : public ::testing::Test
    {
    protected:
        void SetUp() override
        {
            // xeus passes a line number it does not track; the history numbers entries itself.
            m_history.store_inputs(0, 1, "a = 1");
            m_history.store_inputs(0, 1, "b = 2");
            m_history.store_inputs(0, 1, "a = 1");
        }

        execution_history m_history;
    };

    TEST_F(history_of_three, tail_returns_the_newest_entries_as_session_line_input)
    {
        nl::json reply = m_history.process_request(request({{"hist_access_type", "tail"}, {"n", 2}}));
        EXPECT_EQ(reply["status"], "ok");
        EXPECT_EQ(reply["history"], nl::json::parse(R"([[1, 2, "b = 2"], [1, 3, "a = 1"]])"));
    }

    TEST_F(history_of_three, output_requested_makes_the_third_field_an_input_output_pair)
    {
        nl::json reply = m_history.process_request(
            request({{"hist_access_type", "tail"}, {"n", 1}, {"output", true}}));
        ASSERT_EQ(reply["history"].size(), 1u);
        EXPECT_EQ(reply["history"][0][2].size(), 2u);
        EXPECT_EQ(reply["history"][0][2][0], "a = 1");
    }

    TEST_F(history_of_three, range_selects_lines_from_start_up_to_stop_excluded)
    {
        nl::json reply = m_history.process_request(
            request({{"hist_access_type", "range"}, {"session", 1}, {"start", 2}, {"stop", 3}}));
        EXPECT_EQ(reply["history"], nl::json::parse(R"([[1, 2, "b = 2"]])"));
    }

    TEST_F(history_of_three, range_of_another_session_is_empty)
    {
        nl::json reply = m_history.process_request(
            request({{"hist_access_type", "range"}, {"session", 7}, {"start", 1}, {"stop", 4}}));
        EXPECT_TRUE(reply["history"].empty());
    }

    TEST_F(history_of_three, search_matches_glob_patterns_and_unique_keeps_the_newest)
    {
        nl::json all = m_history.process_request(request({{"hist_access_type", "search"}, {"pattern", "a*"}}));
        EXPECT_EQ(all["history"].size(), 2u);
        nl::json unique = m_history.process_request(
            request({{"hist_access_type", "search"}, {"pattern", "a*"}, {"unique", true}}));
        EXPECT_EQ(unique["history"], nl::json::parse(R"([[1, 3, "a = 1"]])"));
    }
}
