# The [output] keys through the executable: a bad value stops the run with the key and what
# was expected (pw_bad_deck comes from bad_decks.cmake, included before this file).
pw_bad_deck(output_interval
  "output.interval: expected a number of coarse steps >= 0 (0: only at the end), got -2"
  ${PW_GOOD_DECK} output.interval=-2)
pw_bad_deck(output_prefix
  "output.prefix: expected a non-empty file name prefix without '/', got \"a/b\""
  ${PW_GOOD_DECK} "output.prefix=\"a/b\"")
