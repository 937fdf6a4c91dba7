#include "xcuda/compile/compile_cell.hpp"

namespace xcuda::compile {

// NVRTC's automatic precompiled headers (`-- -pch`: a cell including CCCL's <cuda/std/cmath>
// recompiles in ~0.1 s instead of ~1 s) are written by default to /tmp/__nvrtc_auto_pch_<pid>_0,
// a name any local user can create first and fill. Unless the cell names a directory, they go
// to a private one (PchDir: this process's own under the cache directory, 0700, else a fresh
// mkdtemp), removed with the session. Not part of the cache key (it names the process).
std::string CompileSession::private_pch_dir(PchMode pch) {
    if (pch != PchMode::private_dir) return {};
    if (!pch_dir_tried_) {
        pch_dir_tried_ = true;
        pch_dir_ = PchDir::make(cache_ ? cache_->dir() : std::optional<std::filesystem::path>{});
    }
    if (!pch_dir_) return {};  // NVRTC's default then; the compile still works
    return pch_dir_->path().string();
}

}  // namespace xcuda::compile
