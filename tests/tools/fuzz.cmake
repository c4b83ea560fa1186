# A bounded fuzz run: 160 random mutations (fixed seed) of the decks, command-line values,
# the balance lab's patch files and a dump to restart from, each a clean run or exactly
# one clean error (tests/tools/fuzz_inputs.py says what passes); every fifth deck case
# on 2 ranks. A failing case is kept in build/tests/fuzz with its command.
find_program(PW_PYTHON3 NAMES python3 HINTS /usr/bin)
add_test(NAME fuzz.inputs
  COMMAND ${PW_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/fuzz_inputs.py
          --patchwork $<TARGET_FILE:patchwork> --lab $<TARGET_FILE:balance_lab>
          --decks ${PROJECT_SOURCE_DIR}/inputs/bubble_2d.toml
                  ${PROJECT_SOURCE_DIR}/inputs/bubble_3d.toml
                  ${PROJECT_SOURCE_DIR}/inputs/sod_x.toml
                  ${PROJECT_SOURCE_DIR}/inputs/blast_2d.toml
                  ${PROJECT_SOURCE_DIR}/inputs/shockpool_2d.toml
                  ${PROJECT_SOURCE_DIR}/inputs/poisson_2d.toml
                  ${PROJECT_SOURCE_DIR}/tests/app/decks/restart_swirl_2d.toml
          --restart-deck ${PROJECT_SOURCE_DIR}/tests/app/decks/restart_swirl_2d.toml
          --cases 160 --seed 1 --workdir ${CMAKE_CURRENT_BINARY_DIR}/fuzz
          --mpiexec "${MPIEXEC_EXECUTABLE} ${PW_MPIEXEC_PREFLAGS}")
set_tests_properties(fuzz.inputs PROPERTIES ENVIRONMENT "${PW_TEST_ENV}" PROCESSORS 2
  TIMEOUT 900)
