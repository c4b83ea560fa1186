# The tools/ scripts run on what the executable writes: runs of the 2D bubble at 1 and 2
# ranks leave a dump and a load history each in the test's directory, then
# tests/tools/test_tools.py runs each script on them and checks the PNG it makes is not
# blank. Skipped (code 77, with the reason) when the Python found lacks a package; as in
# yt.cmake, Debian's /usr/bin/python3 (python3-h5py, -matplotlib, -yt) is preferred.
# The checks, not the runs, are labelled `tools` (as are yt.cmake's and some of
# sweep.cmake's): they check the Python tools on files the runs wrote, which does not
# depend on the Kokkos build, so CI runs them in its first pass only (`-LE tools` in the
# second).
find_program(PW_PYTHON3 NAMES python3 HINTS /usr/bin)
set(PW_TOOLS_DIR ${CMAKE_CURRENT_BINARY_DIR}/tools_out)
file(MAKE_DIRECTORY ${PW_TOOLS_DIR})

foreach(np 1 2)
  add_test(NAME tools.run_np${np}
    COMMAND ${CMAKE_COMMAND} -E env ${PW_TEST_ENV}
            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
            $<TARGET_FILE:patchwork> ${PROJECT_SOURCE_DIR}/inputs/bubble_2d.toml
            output.write=true output.dir=np${np} time.max_step=6
    WORKING_DIRECTORY ${PW_TOOLS_DIR})
  set_tests_properties(tools.run_np${np} PROPERTIES FIXTURES_SETUP tools_runs
    PROCESSORS ${np} TIMEOUT 300)
endforeach()

# A domain away from the origin with cells twice as tall as wide, for plot_slice's axes
# (domain.prob_lo, prob_hi).
add_test(NAME tools.run_prob_lo
  COMMAND ${CMAKE_COMMAND} -E env ${PW_TEST_ENV}
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${PW_MPIEXEC_PREFLAGS}
          $<TARGET_FILE:patchwork> ${PROJECT_SOURCE_DIR}/inputs/bubble_2d.toml
          output.write=true output.dir=prob_lo time.max_step=2
          "domain.prob_lo=[-1.0,2.0]" "domain.prob_hi=[0.0,4.0]"
          "advection.blob_center=[-0.5,2.75]"
  WORKING_DIRECTORY ${PW_TOOLS_DIR})
set_tests_properties(tools.run_prob_lo PROPERTIES FIXTURES_SETUP tools_runs TIMEOUT 300)

foreach(check plot_slice plot_slice_prob_lo plot_load plot_load_vs_ranks yt_example)
  add_test(NAME tools.${check}
    COMMAND ${PW_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_tools.py ${check}
            ${PROJECT_SOURCE_DIR}/tools np1 np2
    WORKING_DIRECTORY ${PW_TOOLS_DIR})
  set_tests_properties(tools.${check} PROPERTIES FIXTURES_REQUIRED tools_runs
    ENVIRONMENT "${PW_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS tools)
endforeach()

# Every Python tool on bad arguments and missing or foreign files: one line, no traceback.
add_test(NAME tools.errors
  COMMAND ${PW_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_tool_errors.py
          ${PROJECT_SOURCE_DIR}/tools ${PROJECT_BINARY_DIR} np1
  WORKING_DIRECTORY ${PW_TOOLS_DIR})
set_tests_properties(tools.errors PROPERTIES FIXTURES_REQUIRED tools_runs
  ENVIRONMENT "${PW_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS tools)
