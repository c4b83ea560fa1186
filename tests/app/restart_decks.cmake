# restart=FILE through the executable: a missing or non-HDF5 restart file stops the run
# before any work with exit code 2 and one message naming the file (pw_bad_deck comes from
# bad_decks.cmake, included before this file).
pw_bad_deck(restart_missing "restart: nowhere.h5: no such file"
  ${PW_GOOD_DECK} restart=nowhere.h5)
pw_bad_deck(restart_not_hdf5 "bubble_2d.toml: not an HDF5 file"
  ${PW_GOOD_DECK} restart=${PW_GOOD_DECK})

# A restart that finds a partial last row in the load history (a crash while it was
# written) cuts it, with one warning, and appends whole rows after the complete ones; one
# that finds a row the run did not write stops before any work, naming the line, and
# leaves the history as it was (it kept the row and appended after it).
foreach(case partial_row bad_row)
  foreach(np 1 2)
    set(dir ${CMAKE_CURRENT_BINARY_DIR}/restart_history/${case}_np${np})
    add_test(NAME restart_history.${case}.np${np}
      COMMAND ${CMAKE_CURRENT_LIST_DIR}/restart_history.sh ${case} ${dir}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PW_MPIEXEC_PREFLAGS}
              $<TARGET_FILE:patchwork> ${CMAKE_CURRENT_LIST_DIR}/decks/restart_swirl_2d.toml
              output.interval=2 "output.dir=\"${dir}\"")
    set_tests_properties(restart_history.${case}.np${np} PROPERTIES
      ENVIRONMENT "${PW_TEST_ENV}" PROCESSORS ${np} TIMEOUT 120)
  endforeach()
endforeach()

# The composite Poisson solve of a singular problem (periodic walls) restarted: the
# restore's re-solve averaged the finer levels down onto covered cells that held their
# mean less the level mean, and the next regrid took another answer from them.
foreach(k 1 2)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/restart_poisson_periodic/from${k})
  add_test(NAME restart_poisson_periodic.from${k}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/restart_same_answer.sh ${dir} 3 ${k}
            $<TARGET_FILE:patchwork> ${PROJECT_SOURCE_DIR}/inputs/poisson_2d.toml)
  set_tests_properties(restart_poisson_periodic.from${k} PROPERTIES
    ENVIRONMENT "${PW_TEST_ENV}" TIMEOUT 120)
endforeach()
