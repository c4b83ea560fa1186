# restart=FILE through the executable: a missing or non-HDF5 restart file stops the run
# before any work with exit code 2 and one message naming the file (pw_bad_deck comes from
# bad_decks.cmake, included before this file).
pw_bad_deck(restart_missing "restart: nowhere.h5: no such file"
  ${PW_GOOD_DECK} restart=nowhere.h5)
pw_bad_deck(restart_not_hdf5 "bubble_2d.toml: not an HDF5 file"
  ${PW_GOOD_DECK} restart=${PW_GOOD_DECK})
