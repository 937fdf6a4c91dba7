# One place for the warning flags every target of ours builds with.
function(xcuda_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()
