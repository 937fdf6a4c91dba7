// Writes one sample of every report: <name>.fragment.html (what the kernel publishes as
// text/html), <name>.svg for charts, and <name>.html, a page showing the fragment under
// JupyterLab's light and dark theme variables side by side for a visual check.
// ctest checks the fragments and SVGs are well-formed XML (check_well_formed.py).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "xcuda/report/access_map.hpp"
#include "xcuda/report/counters_report.hpp"
#include "xcuda/report/device_info_report.hpp"
#include "xcuda/report/profile_report.hpp"
#include "xcuda/report/ptx_view.hpp"
#include "xcuda/report/resources_report.hpp"
#include "xcuda/report/rubric_report.hpp"
#include "xcuda/report/sass_view.hpp"
#include "xcuda/report/source_lines_report.hpp"
#include "xcuda/report/timing_report.hpp"

using namespace xcuda::report;
namespace fs = std::filesystem;

namespace {

// A subset of JupyterLab 4's theme-light / theme-dark variables, enough for the reports.
const char* kPageCss = R"(
body{margin:0;display:flex;font-family:sans-serif}
.pane{flex:1;padding:12px;min-width:0}
.light{--jp-layout-color1:#fff;--jp-layout-color2:#eee;--jp-content-font-color1:rgba(0,0,0,.87);
 --jp-content-font-color2:rgba(0,0,0,.54);--jp-content-font-color3:rgba(0,0,0,.38);--jp-border-color2:#e0e0e0;
 --jp-layout-color3:#bdbdbd;--jp-brand-color1:#1976d2;--jp-warn-color0:#ef6c00;--jp-cell-editor-background:#f5f5f5;
 --jp-mirror-editor-comment-color:#408080;--jp-mirror-editor-keyword-color:#008000;
 --jp-mirror-editor-variable-2-color:#05a;--jp-mirror-editor-builtin-color:#008000;
 --jp-mirror-editor-number-color:#080;--jp-mirror-editor-def-color:#00f;--jp-mirror-editor-string-color:#ba2121;
 background:var(--jp-layout-color1)}
.dark{--jp-layout-color1:#212121;--jp-layout-color2:#424242;--jp-content-font-color1:rgba(255,255,255,1);
 --jp-content-font-color2:rgba(255,255,255,.7);--jp-content-font-color3:rgba(255,255,255,.5);--jp-border-color2:#616161;
 --jp-layout-color3:#616161;--jp-brand-color1:#64b5f6;--jp-warn-color0:#ffb74d;--jp-cell-editor-background:#303030;
 --jp-mirror-editor-comment-color:#9e9e9e;--jp-mirror-editor-keyword-color:#81c784;
 --jp-mirror-editor-variable-2-color:#64b5f6;--jp-mirror-editor-builtin-color:#4dd0e1;
 --jp-mirror-editor-number-color:#ce93d8;--jp-mirror-editor-def-color:#ffb74d;--jp-mirror-editor-string-color:#ff8a65;
 background:var(--jp-layout-color1)}
)";

void write(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

void sample(const fs::path& dir, const std::string& name, const Rich& r) {
    write(dir / (name + ".fragment.html"), r.html);
    write(dir / (name + ".txt"), r.plain);
    if (!r.svg.empty()) write(dir / (name + ".svg"), r.svg);
    write(dir / (name + ".html"), "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + name +
                                      "</title><style>" + kPageCss + "</style></head><body><div class=\"pane light\">" +
                                      r.html + "</div><div class=\"pane dark\">" + r.html + "</div></body></html>");
}

std::string read(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One launch's speed of light; the caller adds occupancy, hit rates, FLOPs and metrics.
CounterLaunch counted(std::string kernel, Dim3 grid, Dim3 block, double ns, double sm, double memory, double dram,
                      double read, double written) {
    CounterLaunch l;
    l.kernel = std::move(kernel);
    l.grid = grid;
    l.block = block;
    l.duration_ns = ns;
    l.sm_throughput_pct = sm;
    l.memory_throughput_pct = memory;
    l.dram_throughput_pct = dram;
    l.dram_bytes_read = read;
    l.dram_bytes_write = written;
    return l;
}

// An H200 roofline with a memory-bound add (1 FLOP per 12 bytes), a compute-bound FMA loop,
// a copy with no FP operations, and a hostile kernel name.
Rich counters_sample() {
    const Roofline h200{"NVIDIA H200", 4.8e12, {{"FP64", 3.4e13}, {"FP32", 6.7e13}, {"FP16", 1.3e14}}};
    const double n = 1 << 26;
    CounterLaunch add = counted("add", {262144}, {256}, 183e3, 14.2, 91.3, 91.3, 8 * n, 4 * n);
    add.achieved_occupancy_pct = 87.5;
    add.theoretical_occupancy_pct = 100;
    add.l1_hit_rate_pct = 0;
    add.l2_hit_rate_pct = 33.4;
    add.flops_fp32 = n;
    add.metrics = {{"dram__bytes_read.sum", 8 * n, "byte"},
                   {"dram__bytes_write.sum", 4 * n, "byte"},
                   {"gpu__time_duration.sum", 183e3, "nsecond"},
                   {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 14.2, "%"},
                   {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", n, "inst"}};
    CounterLaunch fma = counted("fma_loop<float, 512>", {1056}, {256}, 1.12e6, 88.6, 9.5, 7.8, 2.8e8, 1.4e8);
    fma.achieved_occupancy_pct = 93.0;
    fma.theoretical_occupancy_pct = 100;
    fma.l2_hit_rate_pct = 97.0;
    fma.flops_fp32 = 6.4e10;
    fma.metrics = {{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 3.2e10, "inst"},
                   {"sm__warps_active.avg.pct_of_peak_sustained_active", 93.0, "%"}};
    CounterLaunch copy =
        counted("<script>alert('copy')</script>", {64, 64}, {16, 16}, 21e3, 22.0, 41.0, 35.0, 4.2e6, 4.2e6);
    copy.metrics = {{"<b>not a metric</b>", 0.125, "&"}};
    return counters_report({add, fma, copy}, h200, "Counters of 3 launches; each launch was replayed 9 times.");
}

// PC samples of the two kernels of saxpy_block_sum.cu, as CUPTI names their stall reasons.
Rich source_lines_sample(const std::string& cell) {
    std::vector<std::string> lines;
    std::istringstream in(cell);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    const std::string p = "smsp__pcsamp_warps_issue_stalled_";
    SourceSamples saxpy{
        "saxpy",
        lines,
        {{6, 410, {{p + "selected", 250}, {p + "wait", 160}}},
         {8, 7310, {{p + "long_scoreboard", 6120}, {p + "lg_throttle_not_issued", 730}, {p + "selected", 460}}}},
        7950,
        230};
    SourceSamples block_sum{
        "block_sum",
        lines,
        {{16, 5061, {{p + "long_scoreboard", 3138}, {p + "wait", 1012}, {p + "selected", 911}}},
         {17, 2410, {{p + "barrier", 2200}, {p + "selected", 210}}},
         {19, 3150, {{p + "short_scoreboard", 1500}, {p + "mio_throttle", 900}, {p + "selected", 750}}},
         {20, 1260, {{p + "barrier", 1260}}},
         {22, 230, {{p + "membar", 200}, {p + "selected", 30}}}},
        12345,
        234};
    return source_lines_report({saxpy, block_sum});
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: " << argv[0] << " OUTPUT_DIR TEST_DATA_DIR\n";
        return 2;
    }
    const fs::path dir = argv[1], data = argv[2];
    fs::create_directories(dir);

    KernelResources a{"saxpy", "sm_90", 16, 0, 0, 0, 0, 380};
    KernelResources b{"<script>alert(1)</script>", "sm_90", 72, 0, 0, 0, 4096, 380};
    KernelResources c{"spilling_kernel_with_a_long_name<float4>", "sm_90", 255, 16, 24, 40, 48 * 1024, 380};
    sample(dir, "resources", resources_report({a, b, c}));

    sample(dir, "timing",
           timing_report(summarize_timing({12.1e-6, 12.3e-6, 12.9e-6, 12.2e-6, 12.5e-6, 12.3e-6, 12.4e-6}, 1000),
                         "saxpy[4096, 256](2.0, x, y, n)"));

    std::vector<ProfiledLaunch> launches;
    for (int i = 0; i < 3; ++i)
        launches.push_back({"saxpy", 0, {4096, 1, 1}, {256, 1, 1}, 16, 0, 1.0, 0.41, std::uint64_t(12) << 20});
    launches.push_back({"block_sum", 0, {4096, 1, 1}, {256, 1, 1}, 18, 1024, 1.0, 0.35, std::uint64_t(4) << 20});
    launches.push_back({"a_very_long_templated_kernel_name<float, 128, true>",
                        0,
                        {64, 64, 1},
                        {16, 16, 1},
                        64,
                        8192,
                        0.5,
                        2.7,
                        std::nullopt});
    launches.push_back({"<script>", 0, {1, 1, 1}, {32, 1, 1}, 8, 0, std::nullopt, 0.004, std::nullopt});
    sample(dir, "profile", profile_report(launches));

    sample(
        dir, "ptx",
        ptx_view(read(data / "saxpy_block_sum.nvrtc_lineinfo_sm90.ptx"), read(data / "saxpy_block_sum.cu"), "cell.cu"));
    sample(dir, "sass",
           sass_view("\tcode for sm_90\n\t\tFunction : saxpy\n"
                     "        /*0000*/                   LDC R1, c[0x0][0x28] ;             /* 0x00000a00ff017b82 */\n"
                     "        /*0010*/                   S2R R0, SR_TID.X ;                 /* 0x0000000000007919 */\n"
                     "        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ; /* 0x0000000400007c0c */\n"
                     "        /*0030*/               @P0 EXIT ;                             /* 0x000000000000094d */\n"
                     "        /*0040*/                   BRA `(.L_x_0) ;                    /* 0xfffffffc00fc7947 */\n"
                     ".L_x_0:\n"));
    sample(dir, "tool_missing",
           tool_missing("nvdisasm", {"/usr/local/cuda/bin", "PATH"}, "cuda-nvdisasm", "to see SASS",
                        "PTX is available with --ptx"));

    SystemInfo none;
    none.no_device_reason = "libcuda.so.1 not found (no NVIDIA driver on this machine)";
    none.pieces = {
        {"NVRTC", "13.0, /usr/local/cuda/lib64/libnvrtc.so.13 (from system toolkit: /usr/local/cuda)", false},
        {"CUPTI",
         "not found: pip install nvidia-cuda-cupti (only hardware counters, --lines and "
         "%%cuda_timeline on a GPU need it)",
         true}};
    sample(dir, "device_info_nogpu", device_info_report(none));
    SystemInfo h200 = none;
    h200.devices = {{0, "NVIDIA H200", 9, 0, 132, 150754820096ULL, 1980000, 3201000, 6144, 60ULL << 20, true}};
    h200.driver_version = 13000;
    sample(dir, "device_info", device_info_report(h200));
    sample(dir, "counters", counters_sample());
    sample(dir, "source_lines", source_lines_sample(read(data / "saxpy_block_sum.cu")));
    std::cout << "report samples written to " << dir.string() << "\n";
    Rubric rubric;
    rubric.exercise = "affine";
    rubric.kernel = "affine<script>";
    rubric.device = "the CPU device";
    rubric.verdict = "not yet: 1 of 2 tests fail";
    rubric.score = 1;
    rubric.max_score = 4;
    rubric.tests = {{"n = 100", "1 x 256", true, "all 100 output elements right", "", ""},
                    {"n = 1000", "4 x 256", false, "y[256] is 0, expected 769", "does the index use blockIdx?", ""}};
    rubric.gates = {{"global loads per element", "1.00", "<= 1", false, false, "line 4: `y[i] = x[i] < 0`"}};
    rubric.findings = {{4, "if (i <= n) y[i] = 1;", "n = 100", "KernelCheckError: out of bounds <b>", "guard it"}};
    rubric.stories = {{"thread (0,0,0) of block (1,0,0) did", {{4, "y[i] = x[i];", 2, {"x[0] = 1 read"}}}, ""}};
    AccessMap map;
    map.title = "Which thread touched which element";
    map.threads_per_block = 4;
    map.arrays = {{"y",
                   "written",
                   0,
                   {0, 1, 2, 3, -1, -1},
                   {0, 0, 0, 0, 0, 0},
                   {false, false, false, false, true, true},
                   {},
                   {}}};
    rubric.picture_svg = access_map_svg(map);
    sample(dir, "rubric", rubric_report(rubric));
    write(dir / "access_map.svg", rubric.picture_svg);
    return 0;
}
