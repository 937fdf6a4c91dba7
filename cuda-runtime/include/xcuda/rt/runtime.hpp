// Everything of the CUDA layer in one include.
#pragma once

#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/context.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/graph.hpp>
#include <xcuda/rt/interrupted_work.hpp>
#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/memory.hpp>
#include <xcuda/rt/module.hpp>
#include <xcuda/rt/ptxas_info.hpp>
#include <xcuda/rt/staged_copy.hpp>
#include <xcuda/rt/stream.hpp>
#include <xcuda/rt/wait.hpp>
