#include "handler_errors.hpp"

#include <typeinfo>

namespace xcuda::kernel
{
    nlohmann::json kernel_error_reply(const std::string& request, std::exception_ptr error)
    {
        std::string ename = "KernelError";
        std::string evalue;
        try
        {
            std::rethrow_exception(error);
        }
        catch (const std::exception& e)
        {
            evalue = e.what();
        }
        catch (...)
        {
            evalue = "an exception that is not a std::exception";
        }
        evalue = "the xcuda kernel failed while handling " + request + ": " + evalue
                 + " (the kernel is still running; please report this with the cell that caused it)";
        return nlohmann::json{{"status", "error"},
                              {"ename", ename},
                              {"evalue", evalue},
                              {"traceback", nlohmann::json::array({ename + ": " + evalue})}};
    }
}
