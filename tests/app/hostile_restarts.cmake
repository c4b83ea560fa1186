# The catalogue of hostile restart files: each case damages a good dump (corrupt_dump.cpp
# says how) and the restart must stop before any work with exit code 2 and one message
# naming the file and what is wrong, at 1 and 2 ranks. Add a case here for every kind of
# bad checkpoint found. (PW_MPIEXEC_PREFLAGS and PW_TEST_ENV come from tests/CMakeLists.)
add_executable(corrupt_dump ${CMAKE_CURRENT_LIST_DIR}/corrupt_dump.cpp)
target_link_libraries(corrupt_dump PRIVATE patchwork_amr)

set(PW_HOSTILE_DECK ${CMAKE_CURRENT_LIST_DIR}/decks/restart_swirl_2d.toml)
set(PW_HOSTILE_DIR ${CMAKE_CURRENT_BINARY_DIR}/hostile_restart)
set(PW_HOSTILE_GOOD ${PW_HOSTILE_DIR}/good/plt_00002.h5)

# The good dump every case starts from (step 2 of the deck, three levels).
add_test(NAME hostile_restart.setup
  COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${PW_MPIEXEC_PREFLAGS}
          $<TARGET_FILE:patchwork> ${PW_HOSTILE_DECK} output.interval=2
          "output.dir=\"${PW_HOSTILE_DIR}/good\"")
set_tests_properties(hostile_restart.setup PROPERTIES
  ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 120 FIXTURES_SETUP pw_hostile_restart)

function(pw_hostile_restart case expected)
  foreach(np 1 2)
    add_test(NAME hostile_restart.${case}.np${np}
      COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_restart_error.sh
              $<TARGET_FILE:corrupt_dump> ${PW_HOSTILE_GOOD}
              ${PW_HOSTILE_DIR}/${case}_np${np}.h5 ${case} "${expected}"
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
              $<TARGET_FILE:patchwork> ${PW_HOSTILE_DECK} time.max_step=4
              output.write=false)
    set_tests_properties(hostile_restart.${case}.np${np} PROPERTIES
      ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 60 FIXTURES_REQUIRED pw_hostile_restart)
  endforeach()
endfunction()

# A good dump and a deck that differs from it (the overrides after `expected`): exit code
# 2 and the message, at 1 and 2 ranks.
function(pw_restart_mismatch case expected)
  foreach(np 1 2)
    add_test(NAME hostile_restart.${case}.np${np}
      COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect_error.sh "${expected}"
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
              $<TARGET_FILE:patchwork> ${PW_HOSTILE_DECK} time.max_step=4
              output.write=false restart=${PW_HOSTILE_GOOD} ${ARGN})
    set_tests_properties(hostile_restart.${case}.np${np} PROPERTIES
      ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 60 FIXTURES_REQUIRED pw_hostile_restart)
  endforeach()
endfunction()

# [units] that are not the dump's (which has none): one run, one unit system.
pw_restart_mismatch(units_differ
  "the dump's code units are none (dimensionless), the deck's [units] length 2 cm, time 3 s, mass 4 g"
  units.length=2.0 units.time=3.0 units.mass=4.0)
# Domain corners that are not the dump's: the same cells of another size.
pw_restart_mismatch(domain_differs
  "holds a domain from [0, 0] to [1, 1], the deck's is from [0, 0] to [2, 2] (domain.prob_lo, domain.prob_hi)"
  "domain.prob_hi=[2.0,2.0]")

# Walls that are not the dump's: periodic images became outflow walls, with no word.
pw_restart_mismatch(periodic_differs
  "holds a run periodic in direction 0, the deck's domain.periodic says false"
  "domain.periodic=[false,true]")

# A dump whose finer levels do not fit what a node gives them here (level 0 does): the
# run stops before it allocates them, exit code 3, naming the level and the figures.
foreach(np 1 2)
  add_test(NAME hostile_restart.levels_exceed_memory.np${np}
    COMMAND ${CMAKE_COMMAND} -E env PW_EXPECT_CODE=3 PW_ALLOW_STDOUT=1
            ${CMAKE_CURRENT_LIST_DIR}/expect_error.sh
            "run failed: restoring the dump's hierarchy: level 1 would have 928 cells in 15 patches, and the hierarchy would then need about 241 kB of field data"
            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
            $<TARGET_FILE:patchwork> ${PW_HOSTILE_DECK} time.max_step=4 output.write=false
            restart=${PW_HOSTILE_GOOD} --max-memory=150kB)
  set_tests_properties(hostile_restart.levels_exceed_memory.np${np} PROPERTIES
    ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 60 FIXTURES_REQUIRED pw_hostile_restart)
endforeach()

# A bad disk: a flipped bit, checksums as written.
pw_hostile_restart(data_bit "level_1/data:datatype=0: patch 0 fails its checksum")
pw_hostile_restart(box_bit "level_1/boxes: fails its checksum")
pw_hostile_restart(time_bit "level_0: its attributes fail their checksum")
pw_hostile_restart(step_bit "checkpoint: its attributes fail their checksum")
pw_hostile_restart(no_checksums "the root group: has no checksum")
# A buggy writer or a hand edit: checksums made to fit.
pw_hostile_restart(unaligned_box "is not aligned to amr.blocking_factor (4)")
pw_hostile_restart(overlapping_boxes ") overlap")
pw_hostile_restart(unnested_box "is not properly nested in level 1")
pw_hostile_restart(nan_data "level_0/data:datatype=0: patch 0 holds nan in component phi0")
pw_hostile_restart(inf_data "level_1/data:datatype=0: patch 0 holds inf in component phi0")
pw_hostile_restart(nan_time "and t_new = nan: expected finite times")
pw_hostile_restart(inf_time "level_0: t_old = inf and t_new = ")
# A type description bent on disk (found by fuzzing: HDF5's conversion crashed on it),
# by a writer that made HDF5's checksum fit, or by a bad disk.
pw_hostile_restart(bent_member_offset "has an unexpected type")
pw_hostile_restart(box_type_bit "incorrect metadata checksum after all read attempts (a damaged file)")
# Object headers' signatures damaged into version 1's, which HDF5 parses unchecked: the
# one damage of a byte the 1.8 format's checksums miss must still end in an error.
pw_hostile_restart(header_version_1 "HDF5: dataset boxes failed")
# HDF5's earliest format, without metadata checksums (a damaged object header crashed
# HDF5 1.10 in the fuzz run): refused before HDF5 parses it.
pw_hostile_restart(earliest_format "in an HDF5 file format without metadata checksums (superblock version 0;")
pw_hostile_restart(unordered_times "expected 0 <= t_old <= t_new")
pw_hostile_restart(levels_disagree "level_2: t_new = ")
pw_hostile_restart(negative_step "checkpoint: step is -1, expected >= 0")
pw_hostile_restart(negative_level_steps "level_1: steps is -3, expected >= 0")
pw_hostile_restart(inconsistent_steps "level_0: steps is 3, the checkpoint's step is 2")
pw_hostile_restart(nan_initial_totals "initial_totals holds a value that is not finite")
pw_hostile_restart(extra_level "num_levels is 2, but the file holds level_2 too")
