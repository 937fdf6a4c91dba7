// What the debugger answers about a cell stopped at a breakpoint, made without Python (on Python
// 3.12 debugpy suspends the control thread if it runs Python during a stop).
#include <gtest/gtest.h>

#include "stopped_frame_variables.hpp"

using nlohmann::json;
using namespace xcuda::kernel;

TEST(StoppedFrameVariables, IPythonsAndTheKernelsNamesAreLeftOutTheUsersKept)
{
    for (const char* name :
         {"In", "Out", "get_ipython", "exit", "_", "__", "_1", "_42", "_i", "_ii", "_i7", "__builtins__"})
    {
        EXPECT_TRUE(is_kernel_variable_name(name)) << name;
    }
    for (const char* name : {"a", "total", "x_1", "_private", "__init__", "Input", "i"})
    {
        EXPECT_FALSE(is_kernel_variable_name(name)) << name;
    }
    const json request = {{"seq", 12}, {"command", "variables"}};
    const json reply = {{"success", true},
                        {"request_seq", 12},
                        {"body",
                         {{"variables", json::array({{{"name", "In"}, {"value", "[...]"}},
                                                     {{"name", "add"}, {"value", "<function add>"}},
                                                     {{"name", "_i3"}, {"value", "'x'"}},
                                                     {{"name", "result"}, {"value", "5"}}})}}}};
    json filtered = without_kernel_names(request, reply);
    ASSERT_EQ(filtered["body"]["variables"].size(), 2u);
    EXPECT_EQ(filtered["body"]["variables"][0]["name"], "add");
    EXPECT_EQ(filtered["body"]["variables"][1]["name"], "result");
    const json failed = {{"success", false}, {"message", "no such frame"}};
    EXPECT_EQ(without_kernel_names(request, failed), failed);  // a failure goes back as debugpy said it
}

TEST(StoppedFrameVariables, OnlyANameIsEvaluatedInTheStoppedFrame)
{
    EXPECT_TRUE(is_python_name("a"));
    EXPECT_TRUE(is_python_name("_total2"));
    EXPECT_TRUE(is_python_name("\xc3\xa9t\xc3\xa9"));  // été
    for (const char* code :
         {"", "2a", "a.b", "a()", "__import__('os').system('x')", "a b", "special variables", "a[0]"})
    {
        EXPECT_FALSE(is_python_name(code)) << code;
    }
    json request = rendering_request("total", 7, 41);
    EXPECT_EQ(request["command"], "evaluate");
    EXPECT_EQ(request["seq"], 41);
    EXPECT_EQ(request["arguments"]["frameId"], 7);
    EXPECT_NE(request["arguments"]["expression"].get<std::string>().find("display_json(total)"), std::string::npos);
}

TEST(StoppedFrameVariables, TheRenderingIsReadAsRawStringOrAsItsRepr)
{
    const json raw = {{"success", true}, {"body", {{"result", R"([{"text/plain": "2"}, {}])"}}}};
    rendering shown = read_rendering("a", raw);
    EXPECT_EQ(shown.problem, "");
    EXPECT_EQ(shown.data["text/plain"], "2");
    EXPECT_TRUE(shown.metadata.is_object());
    // repr quotes with ' unless the text holds one; \\ and \' are its only escapes for this text
    const json repr = {{"success", true}, {"body", {{"result", R"('[{"text/plain": "\'x\' \\\\ y"}, {}]')"}}}};
    shown = read_rendering("s", repr);
    EXPECT_EQ(shown.problem, "");
    EXPECT_EQ(shown.data["text/plain"], "'x' \\ y");
}

TEST(StoppedFrameVariables, AFailedOrUnreadableRenderingIsSaid)
{
    rendering shown = read_rendering("a", {{"success", false}, {"message", "NameError: name 'a' is not defined"}});
    EXPECT_EQ(shown.problem, "NameError: name 'a' is not defined");
    shown = read_rendering("a", {{"success", true}, {"body", {{"result", "<object at 0x1>"}}}});
    EXPECT_NE(shown.problem.find("cannot read"), std::string::npos);
    shown = read_rendering("a", {{"success", true}, {"body", {{"result", R"('[{"x": "\n"}, {}]')"}}}});
    EXPECT_NE(shown.problem.find("cannot read"), std::string::npos);  // an escape JSON text never needs
}
