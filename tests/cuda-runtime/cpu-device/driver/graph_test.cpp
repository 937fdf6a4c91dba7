// Stream capture and graphs: what a capture records, instantiation, replays in order, updated
// kernel parameters, capture status and the rules that invalidate a capture.
#include "driver_test_support.hpp"

#include <cstring>

namespace xcuda::cpu::testing {
namespace {

class Graphs : public DriverTest {
protected:
    void SetUp() override {
        DriverTest::SetUp();
        ASSERT_EQ(drv::cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(drv::cuStreamDestroy(stream), CUDA_SUCCESS);
        DriverTest::TearDown();
    }
    CUgraph capture_appends(std::vector<std::uint32_t> tags) {
        EXPECT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
        for (std::uint32_t t : tags) EXPECT_EQ(launch("append", stream, {t}), CUDA_SUCCESS);
        CUgraph g = nullptr;
        EXPECT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_SUCCESS);
        return g;
    }
    CUstream stream = nullptr;
};

TEST_F(Graphs, ACapturedLaunchDoesNotRunUntilTheGraphIsLaunched) {
    const CUgraph g = capture_appends({1, 2, 3});
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_TRUE(fake_engine::launches().empty());
    CUgraphExec exec = nullptr;
    ASSERT_EQ(drv::cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    // `stream` is non-blocking: nothing orders it with the legacy stream, so the second replay
    // may start only once the first is done (it ran interleaved under ASan once).
    ASSERT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{1, 2, 3}));
    ASSERT_EQ(drv::cuGraphLaunch(exec, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{1, 2, 3, 1, 2, 3}));
    EXPECT_EQ(drv::cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphExecDestroy(exec), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Graphs, NodesTypesAndKernelParameters) {
    const CUgraph g = capture_appends({7, 8});
    std::size_t count = 0;
    ASSERT_EQ(drv::cuGraphGetNodes(g, nullptr, &count), CUDA_SUCCESS);
    ASSERT_EQ(count, 2u);
    CUgraphNode nodes[3] = {nullptr, nullptr, reinterpret_cast<CUgraphNode>(1)};
    count = 3;
    ASSERT_EQ(drv::cuGraphGetNodes(g, nodes, &count), CUDA_SUCCESS);
    EXPECT_EQ(count, 2u);
    EXPECT_EQ(nodes[2], nullptr);
    CUgraphNodeType type{};
    ASSERT_EQ(drv::cuGraphNodeGetType(nodes[1], &type), CUDA_SUCCESS);
    EXPECT_EQ(type, CU_GRAPH_NODE_TYPE_KERNEL);
    CUDA_KERNEL_NODE_PARAMS p{};
    ASSERT_EQ(drv::cuGraphKernelNodeGetParams(nodes[1], &p), CUDA_SUCCESS);
    EXPECT_EQ(p.func, function("append"));
    EXPECT_EQ(p.gridDimX, 1u);
    EXPECT_EQ(p.blockDimX, 1u);
    ASSERT_NE(p.kernelParams, nullptr);
    std::uint32_t arg = 0;
    std::memcpy(&arg, p.kernelParams[0], 4);
    EXPECT_EQ(arg, 8u);
    EXPECT_EQ(p.extra, nullptr);
    EXPECT_EQ(drv::cuGraphNodeGetType(reinterpret_cast<CUgraphNode>(&p), &type), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphGetNodes(g, nodes, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphNodeGetType(nodes[0], &type), CUDA_ERROR_INVALID_VALUE);  // gone with its graph
}

TEST_F(Graphs, NewParametersChangeLaterLaunchesOfTheExecutableGraphOnly) {
    const CUgraph g = capture_appends({1, 2});
    CUgraphExec exec = nullptr;
    ASSERT_EQ(drv::cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
    CUgraphNode nodes[2];
    std::size_t count = 2;
    ASSERT_EQ(drv::cuGraphGetNodes(g, nodes, &count), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", stream, {std::uint32_t{50}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_SUCCESS);  // queued with the old parameters
    CUDA_KERNEL_NODE_PARAMS p{};
    ASSERT_EQ(drv::cuGraphKernelNodeGetParams(nodes[1], &p), CUDA_SUCCESS);
    std::uint32_t replacement = 20;
    void* params[] = {&replacement};
    p.kernelParams = params;
    ASSERT_EQ(drv::cuGraphExecKernelNodeSetParams(exec, nodes[1], &p), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    fake_engine::open_gate(50);
    ASSERT_EQ(wait_stream(stream), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{1, 2, 1, 20}));
    // The graph's own node keeps its parameters.
    ASSERT_EQ(drv::cuGraphKernelNodeGetParams(nodes[1], &p), CUDA_SUCCESS);
    std::uint32_t arg = 0;
    std::memcpy(&arg, p.kernelParams[0], 4);
    EXPECT_EQ(arg, 2u);
    p.blockDimX = 2000;
    EXPECT_EQ(drv::cuGraphExecKernelNodeSetParams(exec, nodes[1], &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphExecKernelNodeSetParams(exec, reinterpret_cast<CUgraphNode>(&p), &p),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphExecKernelNodeSetParams(exec, nodes[1], nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_SUCCESS);
}

TEST_F(Graphs, CaptureStatusAndInfo) {
    CUstreamCaptureStatus status{};
    ASSERT_EQ(drv::cuStreamIsCapturing(stream, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);
    ASSERT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamIsCapturing(stream, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    const CUgraphNode* deps = nullptr;
    const CUgraphEdgeData* edges = nullptr;
    std::size_t n = 99;
    ASSERT_EQ(drv::cuStreamGetCaptureInfo(stream, &status, &id, &graph, &deps, &edges, &n), CUDA_SUCCESS);
    EXPECT_EQ(n, 0u);
    EXPECT_NE(id, 0u);
    ASSERT_EQ(launch("append", stream, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamGetCaptureInfo(stream, &status, &id, &graph, &deps, &edges, &n), CUDA_SUCCESS);
    ASSERT_EQ(n, 1u);
    CUgraphNode nodes[1];
    std::size_t count = 1;
    ASSERT_EQ(drv::cuGraphGetNodes(graph, nodes, &count), CUDA_SUCCESS);
    EXPECT_EQ(deps[0], nodes[0]);  // the last node captured
    EXPECT_EQ(edges[0].type, 0);
    EXPECT_EQ(drv::cuStreamGetCaptureInfo(stream, &status, nullptr, nullptr, nullptr, &edges, &n),
              CUDA_ERROR_INVALID_VALUE);  // edges without dependencies
    EXPECT_EQ(drv::cuStreamGetCaptureInfo(stream, nullptr, &id, nullptr, nullptr, nullptr, nullptr),
              CUDA_ERROR_INVALID_VALUE);
    CUgraph ended = nullptr;
    ASSERT_EQ(drv::cuStreamEndCapture(stream, &ended), CUDA_SUCCESS);
    EXPECT_EQ(ended, graph);
    ASSERT_EQ(drv::cuStreamIsCapturing(stream, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);
    EXPECT_EQ(drv::cuGraphDestroy(ended), CUDA_SUCCESS);
}

TEST_F(Graphs, CaptureRules) {
    CUgraph g = nullptr;
    EXPECT_EQ(drv::cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_RELAXED),
              CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_ERROR_ILLEGAL_STATE);
    ASSERT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    // Querying a capturing stream is not allowed, and spoils the capture.
    EXPECT_EQ(drv::cuStreamQuery(stream), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUstreamCaptureStatus status{};
    ASSERT_EQ(drv::cuStreamIsCapturing(stream, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    EXPECT_EQ(launch("append", stream, {std::uint32_t{1}}), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(drv::cuStreamBeginCapture(stream, static_cast<CUstreamCaptureMode>(9)), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Graphs, TheLegacyStreamCannotWaitForACapturingBlockingStream) {
    CUstream blocking = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamBeginCapture(blocking, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    CUstreamCaptureStatus status{};
    EXPECT_EQ(drv::cuStreamIsCapturing(nullptr, &status), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    EXPECT_EQ(launch("noop", nullptr), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    ASSERT_EQ(drv::cuStreamIsCapturing(blocking, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    CUgraph g = nullptr;
    EXPECT_EQ(drv::cuStreamEndCapture(blocking, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    // A non-blocking capture leaves the legacy stream alone.
    ASSERT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    EXPECT_EQ(launch("noop", nullptr), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(blocking), CUDA_SUCCESS);
}

TEST_F(Graphs, CopiesAndMemsetsBecomeNodes) {
    const CUdeviceptr d = alloc(8);
    void* pinned = nullptr;
    ASSERT_EQ(drv::cuMemHostAlloc(&pinned, 8, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemsetD8Async(d, 0x2A, 8, stream), CUDA_SUCCESS);
    ASSERT_EQ(launch("store", stream, {std::uint64_t{d}, std::uint32_t{0x01020304}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoHAsync(pinned, d, 8, stream), CUDA_SUCCESS);
    CUgraph g = nullptr;
    ASSERT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_SUCCESS);
    CUgraphNode nodes[3];
    std::size_t count = 3;
    ASSERT_EQ(drv::cuGraphGetNodes(g, nodes, &count), CUDA_SUCCESS);
    ASSERT_EQ(count, 3u);
    CUgraphNodeType types[3];
    for (int i = 0; i < 3; ++i) ASSERT_EQ(drv::cuGraphNodeGetType(nodes[i], &types[i]), CUDA_SUCCESS);
    EXPECT_EQ(types[0], CU_GRAPH_NODE_TYPE_MEMSET);
    EXPECT_EQ(types[1], CU_GRAPH_NODE_TYPE_KERNEL);
    EXPECT_EQ(types[2], CU_GRAPH_NODE_TYPE_MEMCPY);
    CUDA_KERNEL_NODE_PARAMS p{};
    EXPECT_EQ(drv::cuGraphKernelNodeGetParams(nodes[0], &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(*static_cast<std::uint64_t*>(pinned), 0u);  // nothing ran yet
    CUgraphExec exec = nullptr;
    ASSERT_EQ(drv::cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    ASSERT_EQ(wait_stream(stream), CUDA_SUCCESS);
    EXPECT_EQ(*static_cast<std::uint64_t*>(pinned), 0x2A2A2A2A01020304u);
    // Freed before a replay: the replay fails like an illegal access on a GPU, the process goes on.
    ASSERT_EQ(drv::cuMemFree(d), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    EXPECT_EQ(wait_stream(stream), CUDA_ERROR_ILLEGAL_ADDRESS);
    const auto failure = take_failure();
    ASSERT_NE(failure, nullptr);
    EXPECT_EQ(failure->finding.kind, FindingKind::use_after_free);
    EXPECT_EQ(drv::cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuMemFreeHost(pinned), CUDA_SUCCESS);
}

TEST_F(Graphs, PageableMemoryAndNestedGraphsCannotBeCaptured) {
    const CUdeviceptr d = alloc(8);
    const CUgraph inner = capture_appends({1});
    CUgraphExec exec = nullptr;
    ASSERT_EQ(drv::cuGraphInstantiate(&exec, inner, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_ERROR_NOT_SUPPORTED);
    std::uint64_t host = 0;
    EXPECT_EQ(drv::cuMemcpyHtoDAsync(d, &host, 8, stream), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUgraph g = nullptr;
    EXPECT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    CUgraphExec other = nullptr;
    EXPECT_EQ(drv::cuGraphInstantiate(&other, inner, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
              CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(drv::cuGraphInstantiate(&other, reinterpret_cast<CUgraph>(&host), 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphDestroy(inner), CUDA_SUCCESS);
}

TEST_F(Graphs, AFailingKernelEndsTheGraphLaunch) {
    EXPECT_EQ(drv::cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", stream, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("fail", stream), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", stream, {std::uint32_t{2}}), CUDA_SUCCESS);
    CUgraph g = nullptr;
    ASSERT_EQ(drv::cuStreamEndCapture(stream, &g), CUDA_SUCCESS);
    CUgraphExec exec = nullptr;
    ASSERT_EQ(drv::cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    EXPECT_EQ(wait_stream(stream), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{1}));
    EXPECT_EQ(take_failure()->kernel, "fail");
    EXPECT_EQ(drv::cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuGraphDestroy(g), CUDA_SUCCESS);
}

TEST_F(Graphs, DestroyingACapturingStreamDropsItsCapture) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    CUgraph graph = nullptr;
    CUstreamCaptureStatus status{};
    ASSERT_EQ(drv::cuStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", s, {std::uint32_t{1}}), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
    std::size_t n = 0;
    EXPECT_EQ(drv::cuGraphGetNodes(graph, nullptr, &n), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing
