# The [output] keys through the executable: a bad value stops the run with the key and what
# was expected (pw_bad_deck comes from bad_decks.cmake, included before this file).
pw_bad_deck(output_interval
  "output.interval: expected a number of coarse steps >= 0 (0: only at the end), got -2"
  ${PW_GOOD_DECK} output.interval=-2)
pw_bad_deck(output_prefix
  "output.prefix: expected a non-empty file name prefix without '/', got \"a/b\""
  ${PW_GOOD_DECK} "output.prefix=\"a/b\"")
# A prefix too long for the file names made from it: the run stopped at its first dump,
# after its steps, and --check said the deck was good.
string(REPEAT "a" 201 PW_LONG_PREFIX)
pw_bad_deck(output_prefix_long
  "output.prefix: expected at most 200 bytes (the file names add up to 40 to it; most file systems allow 255), got 201"
  --check ${PW_GOOD_DECK} "output.prefix=\"${PW_LONG_PREFIX}\"")
# --check finds an output.dir that cannot be made (here a file), as the run would.
pw_bad_deck(check_output_dir_file "${PW_GOOD_DECK} is not a directory"
  --check ${PW_GOOD_DECK} "output.dir=\"${PW_GOOD_DECK}/out\"")

# [units]: all three or none, each a positive finite number (cm, s, g); a misspelt key is
# unknown with the right one suggested.
set(PW_UNITS units.length=2.0 units.time=3.0 units.mass=4.0)
pw_bad_deck(units_in_file
  "bad_units.toml:10: units.mass: expected a positive finite number of g (what one code unit is), got 0.0"
  ${PW_DECKS}/bad_units.toml)
pw_bad_deck(units_negative
  "argument \"units.length=-1.0\": units.length: expected a positive finite number of cm (what one code unit is), got -1.0"
  ${PW_GOOD_DECK} units.time=3.0 units.mass=4.0 units.length=-1.0)
pw_bad_deck(units_nan
  "units.time: expected a positive finite number of s (what one code unit is), got nan"
  ${PW_GOOD_DECK} units.length=2.0 units.mass=4.0 units.time=nan)
pw_bad_deck(units_inf
  "units.mass: expected a positive finite number of g (what one code unit is), got inf"
  ${PW_GOOD_DECK} units.length=2.0 units.time=3.0 units.mass=inf)
pw_bad_deck(units_string
  "units.length: expected a number, got a string"
  ${PW_GOOD_DECK} units.time=3.0 units.mass=4.0 units.length=parsec)
pw_bad_deck(units_partial
  "units.length: expected units.time too (in s): set length, time and mass together, or none of them (dimensionless code units)"
  ${PW_GOOD_DECK} units.length=2.0)
pw_bad_deck(units_unknown
  "units.lenght: unknown key (did you mean units.length?)"
  ${PW_GOOD_DECK} ${PW_UNITS} units.lenght=2.0)

# A run that fails on a bad key keeps the summary of the good run before it (it was
# replaced by the error's): PREFIX_summary.previous.json, status ok.
set(PW_KEEP_DIR ${CMAKE_CURRENT_BINARY_DIR}/keep_summary)
add_test(NAME summary_kept_after_error
  COMMAND sh -c "rm -rf \"$2\" && \"$0\" \"$1\" time.max_step=1 output.write=false output.dir=\\\"$2\\\" >/dev/null && ! \"$0\" \"$1\" output.dir=\\\"$2\\\" amr.max_levl=2 2>/dev/null && grep -q '\"status\": \"ok\"' \"$2/plt_summary.previous.json\" && grep -q '\"status\": \"error\"' \"$2/plt_summary.json\""
          $<TARGET_FILE:patchwork> ${PW_GOOD_DECK} ${PW_KEEP_DIR})
set_tests_properties(summary_kept_after_error PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)

# A run that stops on bad input found at its first step (a fixed time step above the CFL
# limit) leaves an earlier run's dumps and load history in the folder as they were (the
# history was replaced by a header and the first dump overwritten).
add_test(NAME output_kept_after_error
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/output_kept_after_error.sh $<TARGET_FILE:patchwork>
          ${PW_GOOD_DECK} ${CMAKE_CURRENT_BINARY_DIR}/keep_output)
set_tests_properties(output_kept_after_error PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 120)

# A summary whose name a directory holds: the rename's own error is named (the removal of
# the temporary file overwrote it, and the message ended in "Success").
foreach(np 1 2)
  file(MAKE_DIRECTORY
    ${CMAKE_CURRENT_BINARY_DIR}/bad_deck/summary_is_directory.np${np}/out/plt_summary.json)
endforeach()
pw_bad_run(summary_is_directory "out/plt_summary.json: Is a directory" 2
  ${PW_GOOD_DECK} time.max_step=1 output.write=false "output.dir=\"out\"")

# A dump whose collective write fails on one rank only (a file-size limit on rank 1):
# exit code 2 and one message, no hang (HDF5 1.10 hung closing the file), the earlier
# dumps unchanged, no temporary file left.
add_test(NAME failed_write_one_rank
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/failed_write_one_rank.sh ${MPIEXEC_EXECUTABLE}
          "${PW_MPIEXEC_PREFLAGS}" $<TARGET_FILE:patchwork> ${PW_GOOD_DECK}
          ${CMAKE_CURRENT_BINARY_DIR}/failed_write_one_rank)
set_tests_properties(failed_write_one_rank PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  PROCESSORS 2 TIMEOUT 180)

# A fixed time step is checked against the steps a run takes: none here.
add_test(NAME fixed_dt_no_steps
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/expect_output.sh "^fingerprint: [0-9a-f]{16}$"
          -- $<TARGET_FILE:patchwork> ${PW_GOOD_DECK} time.max_step=0 time.fixed_dt=0.5
          output.write=false "output.dir=\"${CMAKE_CURRENT_BINARY_DIR}/fixed_dt_no_steps\"")
set_tests_properties(fixed_dt_no_steps PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
