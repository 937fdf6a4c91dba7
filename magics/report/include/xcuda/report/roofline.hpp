// A log-log roofline chart as SVG: arithmetic intensity (FLOP per byte of DRAM traffic) on
// x, FLOP/s on y, the memory roof as the diagonal, each compute roof flat from its ridge
// point, and the measured launches as labelled points.
#pragma once

#include <string>
#include <vector>

namespace xcuda::report {

struct Roof {
    std::string name;             // "FP32"
    double flops_per_second = 0;  // the device's peak for that precision
};

struct Roofline {
    std::string device;                // "NVIDIA H200"
    double dram_bytes_per_second = 0;  // the memory roof
    std::vector<Roof> compute_roofs;   // FP64, FP32, FP16 as measured from the device's peak metrics
};

struct RooflinePoint {
    std::string label;     // "#1 add"
    double intensity = 0;  // FLOP per byte of DRAM traffic
    double flops_per_second = 0;
};

// Where the memory roof meets `roof`: roof / bandwidth, in FLOP per byte (0 when the
// bandwidth is not positive).
double ridge_intensity(const Roof& roof, double dram_bytes_per_second);

// Axes span whole decades around every point and ridge point, each decade a grid line
// (class "xcuda-grid", data-axis "x" or "y", data-decade the exponent) with its label. Roofs
// and points whose values are not positive and finite are left out.
std::string roofline_chart(const Roofline& roofline, const std::vector<RooflinePoint>& points);

}  // namespace xcuda::report
