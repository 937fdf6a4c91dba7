// A picture of which thread touched which element, as GPU-Puzzles draws its puzzles: each array
// of a small launch as a row (or grid) of cells; a written cell is coloured by the block of the
// thread that wrote it last and numbered with that thread's index in its block (x,y in a 2-D block); a
// cell only read
// shows how many times it was read; a wrong element has a red border; the cells one chosen thread
// read and wrote are outlined.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xcuda::report {

struct AccessMapArray {
    std::string name;                  // the kernel parameter
    std::string role;                  // "read" or "written": shown after the name
    unsigned columns = 0;              // cells per row (a 2-D array's width; 0: up to 32 per row)
    std::vector<std::int64_t> writer;  // per element: the last writer's block * threads_per_block + thread, or -1
    std::vector<std::uint32_t> reads;  // per element: how many times it was read
    std::vector<bool> wrong;           // per element (may be empty: nothing judged)
    std::vector<bool> focus_read, focus_written;  // per element: by the chosen thread (may be empty)
};

struct AccessMap {
    std::string title;
    std::uint32_t threads_per_block = 1;
    std::uint32_t block_x = 0;  // threads along x; when fewer than threads_per_block, cells say "x,y"
    std::string focus;          // the chosen thread, as the legend names it ("thread 5 of block 1"), or empty
    std::vector<AccessMapArray> arrays;
};

// The picture as one <svg> element (empty when there is no array to draw).
std::string access_map_svg(const AccessMap& map);

}  // namespace xcuda::report
