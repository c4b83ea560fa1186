# tools/sweep and the run summary end to end (tests/tools/test_sweep.py): a 2x2 local
# sweep of tiny runs, its table, the summaries against their schema, failed, resumed,
# moved and killed runs, slurm/pbs/flux job scripts, weak scaling, the launcher's threads,
# variant axes, the example sweep files, bad arguments, the decks' check and the plots. Each
# check has its own directory under sweep/, but collect, schema and plots read what local
# (and failed) made; seed_plots runs two tiny sweeps of its own (emulated latency and
# slowdown; two patch counts).
find_program(PW_PYTHON3 NAMES python3 HINTS /usr/bin)
set(PW_SWEEP_DIR ${CMAKE_CURRENT_BINARY_DIR}/sweep)
file(MAKE_DIRECTORY ${PW_SWEEP_DIR})

function(pw_sweep_test check)
  add_test(NAME sweep.${check}
    COMMAND ${CMAKE_COMMAND} -E env ${PW_TEST_ENV}
            ${PW_PYTHON3} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/test_sweep.py ${check}
            ${PROJECT_SOURCE_DIR}/tools $<TARGET_FILE:patchwork> ${PW_SWEEP_DIR}
    WORKING_DIRECTORY ${PW_SWEEP_DIR})
  set_tests_properties(sweep.${check} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

foreach(check local failed collect schema resume moved killed jobs weak threads variants
    examples bad_args checks plots seed_plots)
  pw_sweep_test(${check})
endforeach()
set_tests_properties(sweep.local sweep.failed sweep.threads sweep.seed_plots
  PROPERTIES PROCESSORS 2)
# Labelled `tools` as in tools.cmake: the checks of the sweep tool's own work (its table,
# resuming, job scripts, arguments, plots). Not local, failed, schema and threads: they
# check what this build's executable writes (its summary's Kokkos block against the
# schema, the threads a launcher gives a host-threaded Kokkos).
set_tests_properties(sweep.collect sweep.resume sweep.moved sweep.killed sweep.jobs sweep.weak
  sweep.variants sweep.examples sweep.bad_args sweep.checks sweep.plots sweep.seed_plots
  PROPERTIES LABELS tools)
set_tests_properties(sweep.local PROPERTIES FIXTURES_SETUP sweep_local)
set_tests_properties(sweep.failed PROPERTIES FIXTURES_SETUP sweep_failed)
set_tests_properties(sweep.collect sweep.plots PROPERTIES FIXTURES_REQUIRED sweep_local)
set_tests_properties(sweep.schema PROPERTIES FIXTURES_REQUIRED "sweep_local;sweep_failed")
