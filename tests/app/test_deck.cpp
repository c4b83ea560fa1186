// Deck and read_amr_config: typed reads, overrides, unknown keys, echo, and every check
// of the [domain], [amr] and [time] sections, each asserting the full message a user
// would see.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "amr/amr_config.hpp"
#include "amr/deck.hpp"

namespace pw {
namespace {

/// The UserError message thrown by f, or "(no error)".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

Deck deck_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return Deck::parse(text, "t.toml", overrides);
}

std::string config_error(const std::string& text,
                         const std::vector<std::string>& overrides = {}) {
  return error_of([&] { read_amr_config(deck_of(text, overrides)); });
}

// A minimal valid 2D deck; the key under test follows on line 3 and beyond.
const std::string kDomain2D =
    "[domain]\n"            // 1
    "n_cell = [64, 64]\n";  // 2

// ---------------------------------------------------------------------------------------------
// Deck: typed reads

TEST(Deck, DeckReadsTypedValuesFromSectionsAndDottedKeys) {
  const Deck deck = deck_of(
      "top = 1\n"
      "[amr]\n"
      "max_level = 3\n"
      "grid_eff = 0.75\n"
      "name = \"berger\"\n"
      "flag = true\n"
      "sizes = [8, 16]\n"
      "lo = [0, 0.5]\n"
      "mask = [true, false]\n"
      "names = [\"a\", \"b\"]\n"
      "inner.deep = 7\n"
      "[physics.advection]\n"
      "speed = 2.5\n");
  EXPECT_EQ(deck.get<int>("top", 0), 1);
  EXPECT_EQ(deck.get<int>("amr.max_level", 0), 3);
  EXPECT_EQ(deck.get<double>("amr.grid_eff", 0.0), 0.75);
  EXPECT_EQ(deck.get<std::string>("amr.name", ""), "berger");
  EXPECT_TRUE(deck.get<bool>("amr.flag", false));
  EXPECT_EQ(deck.get<std::vector<int>>("amr.sizes", {}), (std::vector<int>{8, 16}));
  EXPECT_EQ(deck.get<std::vector<double>>("amr.lo", {}), (std::vector<double>{0, 0.5}));
  EXPECT_EQ(deck.get<std::vector<bool>>("amr.mask", {}),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(deck.get<std::vector<std::string>>("amr.names", {}),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(deck.get<int>("amr.inner.deep", 0), 7);
  EXPECT_EQ(deck.get<double>("physics.advection.speed", 0.0), 2.5);
  EXPECT_EQ(deck.get<int>("amr.absent", 42), 42);
  EXPECT_NO_THROW(deck.check_all_used());
}

TEST(Deck, DeckRejectsStringForIntegerKey) {
  const Deck deck = deck_of(
      "[amr]\n"
      "max_level = \"three\"\n");
  EXPECT_EQ(error_of([&] { deck.get<int>("amr.max_level", 0); }),
            "t.toml:2: amr.max_level: expected an integer, got a string (\"three\")");
}

TEST(Deck, DeckRejectsFloatForIntegerKey) {
  const Deck deck = deck_of(
      "[amr]\n"
      "max_level = 2.0\n");
  EXPECT_EQ(error_of([&] { deck.get<int>("amr.max_level", 0); }),
            "t.toml:2: amr.max_level: expected an integer, got a float (2.0)");
}

TEST(Deck, DeckRejectsIntegerOutOfIntRange) {
  const Deck deck = deck_of(
      "[amr]\n"
      "\n"
      "max_step = 3000000000\n");
  EXPECT_EQ(
      error_of([&] { deck.get<int>("amr.max_step", 0); }),
      "t.toml:3: amr.max_step: expected an integer, got 3000000000 (out of int range)");
  // Beyond 64 bits the parser gives its largest integer, which the message must not
  // present as what was written.
  const Deck big = deck_of("[amr]\nmax_step = 99999999999999999999\n");
  EXPECT_EQ(
      error_of([&] { big.get<int>("amr.max_step", 0); }),
      "t.toml:2: amr.max_step: expected an integer, got 9223372036854775807 or more "
      "(out of int range)");
}

TEST(Deck, DeckAcceptsIntegerForDoubleKey) {
  const Deck deck = deck_of("[time]\ncfl = 1\n");
  EXPECT_EQ(deck.get<double>("time.cfl", 0.5), 1.0);
  EXPECT_EQ(deck.used().at("time.cfl"), "1.0");
}

TEST(Deck, DeckRejectsStringForDoubleKey) {
  const Deck deck = deck_of("[time]\ncfl = \"fast\"\n");
  EXPECT_EQ(error_of([&] { deck.get<double>("time.cfl", 0.5); }),
            "t.toml:2: time.cfl: expected a number, got a string (\"fast\")");
}

TEST(Deck, DeckRejectsIntegerAndStringForBoolKey) {
  const Deck deck = deck_of(
      "[io]\n"
      "verbose = 1\n"
      "quiet = \"true\"\n");
  EXPECT_EQ(error_of([&] { deck.get<bool>("io.verbose", false); }),
            "t.toml:2: io.verbose: expected a boolean, got an integer (1)");
  EXPECT_EQ(error_of([&] { deck.get<bool>("io.quiet", false); }),
            "t.toml:3: io.quiet: expected a boolean, got a string (\"true\")");
}

TEST(Deck, DeckRejectsNumberForStringKey) {
  const Deck deck = deck_of("[balance]\nmethod = 3\n");
  EXPECT_EQ(error_of([&] { deck.get<std::string>("balance.method", "sfc"); }),
            "t.toml:2: balance.method: expected a string, got an integer (3)");
}

TEST(Deck, DeckRejectsScalarForArrayKey) {
  const Deck deck = deck_of("[domain]\nn_cell = 64\n");
  EXPECT_EQ(
      error_of([&] { deck.get<std::vector<int>>("domain.n_cell", {}); }),
      "t.toml:2: domain.n_cell: expected an array of integers, got an integer (64)");
}

TEST(Deck, DeckRejectsArrayWithElementOfWrongType) {
  const Deck deck = deck_of(
      "[domain]\n"
      "n_cell = [64, 2.5]\n"
      "periodic = [true, 0]\n"
      "names = [\"a\", 1]\n"
      "big = [1, 3000000000]\n");
  EXPECT_EQ(
      error_of([&] { deck.get<std::vector<int>>("domain.n_cell", {}); }),
      "t.toml:2: domain.n_cell: expected an array of integers, got [64, 2.5] (element 1 "
      "is a float)");
  EXPECT_EQ(
      error_of([&] { deck.get<std::vector<bool>>("domain.periodic", {}); }),
      "t.toml:3: domain.periodic: expected an array of booleans, got [true, 0] (element "
      "1 is an integer)");
  EXPECT_EQ(
      error_of([&] { deck.get<std::vector<std::string>>("domain.names", {}); }),
      "t.toml:4: domain.names: expected an array of strings, got [\"a\", 1] (element 1 "
      "is an integer)");
  EXPECT_EQ(error_of([&] { deck.get<std::vector<int>>("domain.big", {}); }),
            "t.toml:5: domain.big: expected an array of integers, got [1, 3000000000] "
            "(element 1 is 3000000000, out of int range)");
}

TEST(Deck, DeckAcceptsIntegersInArrayOfNumbers) {
  const Deck deck = deck_of("[domain]\nprob_hi = [1, 2.5]\n");
  EXPECT_EQ(deck.get<std::vector<double>>("domain.prob_hi", {}),
            (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(deck.used().at("domain.prob_hi"), "[1.0, 2.5]");
}

TEST(Deck, DeckRejectsSectionWhereValueExpected) {
  const Deck deck = deck_of(
      "[amr]\n"
      "[amr.max_level]\n"
      "x = 1\n");
  EXPECT_EQ(error_of([&] { deck.get<int>("amr.max_level", 0); }),
            "t.toml:2: amr.max_level: expected an integer, got a table");
}

TEST(Deck, DeckRequireReportsMissingKeyAtFile) {
  const Deck deck = deck_of("[domain]\ndim = 2\n");
  EXPECT_EQ(
      error_of([&] { deck.require<std::vector<int>>("domain.n_cell"); }),
      "t.toml: domain.n_cell: missing required key (expected an array of integers)");
  EXPECT_EQ(deck.require<int>("domain.dim"), 2);
}

TEST(Deck, DeckFailPointsAtKeyLineOrAtFileWhenAbsent) {
  const Deck deck = deck_of("\n[amr]\nmax_level = 2\n");
  EXPECT_EQ(error_of([&] { deck.fail("amr.max_level", "expected less"); }),
            "t.toml:3: amr.max_level: expected less");
  EXPECT_EQ(error_of([&] { deck.fail("amr.n_proper", "expected more"); }),
            "t.toml: amr.n_proper: expected more");
}

TEST(Deck, DeckHasSeesValuesAndSections) {
  const Deck deck = deck_of("[amr]\nmax_level = 2\nratio = [2, 4]\n[advection]\n",
                            {"physics.name=advection"});
  EXPECT_TRUE(deck.has("amr.max_level"));
  EXPECT_TRUE(deck.has("amr"));
  EXPECT_TRUE(deck.has("advection"));
  EXPECT_TRUE(deck.has("physics"));
  EXPECT_TRUE(deck.has("physics.name"));
  EXPECT_FALSE(deck.has("amr.n_proper"));
  EXPECT_FALSE(deck.has("time"));
  EXPECT_TRUE(deck.is_array("amr.ratio"));
  EXPECT_FALSE(deck.is_array("amr.max_level"));
  EXPECT_FALSE(deck.is_array("amr.absent"));
}

// ---------------------------------------------------------------------------------------------
// Deck: syntax errors and files

TEST(Deck, DeckReportsSyntaxErrorWithFileAndLine) {
  const std::string msg = error_of([] {
    deck_of(
        "[amr]\n"
        "max_level = 2\n"
        "blocking_factor 8\n");
  });
  EXPECT_EQ(msg.rfind("t.toml:3: syntax error: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("blocking_factor 8"), std::string::npos) << msg;
  EXPECT_LE(std::count(msg.begin(), msg.end(), '\n'), 1) << msg;
}

TEST(Deck, DeckReportsDuplicateKeyAtItsSecondDefinition) {
  const std::string msg =
      error_of([] { deck_of("[amr]\nmax_level = 2\nmax_level = 3\n"); });
  EXPECT_EQ(msg.rfind("t.toml:3: syntax error: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("already exists"), std::string::npos) << msg;
}

TEST(Deck, DeckReportsUnclosedArrayAtTheLineWhereParsingStopped) {
  const std::string msg =
      error_of([] { deck_of("[domain]\nn_cell = [64, 64\ndim = 2\n"); });
  EXPECT_EQ(msg.rfind("t.toml:3: syntax error: ", 0), 0u) << msg;
}

TEST(Deck, DeckLoadReportsMissingFile) {
  EXPECT_EQ(error_of([] { Deck::load("no/such/deck.toml"); }),
            "no/such/deck.toml: cannot open deck file");
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(error_of([&] { Deck::load(dir); }), dir + ": cannot open deck file");
}

TEST(Deck, DeckLoadReadsFileAndNamesItInMessages) {
  const std::string path = ::testing::TempDir() + "pw_test_deck_load.toml";
  {
    std::ofstream out(path);
    out << "[amr]\nmax_level = \"two\"\n";
  }
  const Deck deck = Deck::load(path, {"time.cfl=0.5"});
  std::remove(path.c_str());
  EXPECT_EQ(deck.file(), path);
  EXPECT_EQ(deck.get<double>("time.cfl", 0.7), 0.5);
  EXPECT_EQ(error_of([&] { deck.get<int>("amr.max_level", 0); }),
            path + ":2: amr.max_level: expected an integer, got a string (\"two\")");
}

// ---------------------------------------------------------------------------------------------
// Deck: overrides

TEST(Deck, DeckOverrideParsesIntegerFloatArrayAndBool) {
  const Deck deck =
      deck_of("[amr]\nmax_level = 1\n", {"amr.max_level=3", "time.cfl=0.5",
                                         "domain.n_cell=[64,32]", " io.verbose = true "});
  EXPECT_EQ(deck.get<int>("amr.max_level", 0), 3);
  EXPECT_EQ(deck.get<double>("time.cfl", 0.7), 0.5);
  EXPECT_EQ(deck.get<std::vector<int>>("domain.n_cell", {}), (std::vector<int>{64, 32}));
  EXPECT_TRUE(deck.get<bool>("io.verbose", false));
}

TEST(Deck, DeckOverrideTakesBareWordAsString) {
  const Deck deck =
      deck_of("[advection]\nvelocity = \"uniform\"\n",
              {"advection.velocity=swirl", "io.prefix=run 2", "io.tag=\"3\""});
  EXPECT_EQ(deck.get<std::string>("advection.velocity", ""), "swirl");
  EXPECT_EQ(deck.get<std::string>("io.prefix", ""), "run 2");
  EXPECT_EQ(deck.get<std::string>("io.tag", ""), "3");
}

TEST(Deck, DeckOverrideTakesMalformedTomlAsString) {
  const Deck deck = deck_of("", {"domain.n_cell=[64,"});
  EXPECT_EQ(error_of([&] { deck.get<std::vector<int>>("domain.n_cell", {}); }),
            "command line: argument \"domain.n_cell=[64,\": domain.n_cell: expected an "
            "array of integers, got a string (\"[64,\")");
}

TEST(Deck, DeckOverrideAddsKeyAbsentFromFile) {
  const Deck deck = deck_of("[amr]\nmax_level = 1\n", {"amr.n_proper=2"});
  EXPECT_TRUE(deck.has("amr.n_proper"));
  EXPECT_EQ(deck.get<int>("amr.n_proper", 1), 2);
}

TEST(Deck, DeckOverrideWinsOverTheFileButAKeyGivenTwiceIsAnError) {
  const Deck deck = deck_of("[amr]\nmax_level = 1\n", {"amr.max_level=2"});
  EXPECT_EQ(deck.get<int>("amr.max_level", 0), 2);
  // The second would silently undo the first.
  EXPECT_EQ(
      error_of([] {
        deck_of("", {"amr.max_level=1", " amr.max_level = 2"});
      }),
      "command line: argument \" amr.max_level = 2\": amr.max_level: given twice on "
      "the command line (also argument \"amr.max_level=1\")");
}

TEST(Deck, DeckRejectsOverrideWithoutEquals) {
  EXPECT_EQ(
      error_of([] { deck_of("", {"amr.max_level"}); }),
      "command line: argument \"amr.max_level\": expected \"section.key=value\" (no "
      "'=' found)");
}

TEST(Deck, DeckRejectsOverrideWithEmptyValueOrBadKey) {
  EXPECT_EQ(error_of([] { deck_of("", {"amr.max_level="}); }),
            "command line: argument \"amr.max_level=\": amr.max_level: expected a value "
            "after '='");
  EXPECT_EQ(error_of([] { deck_of("", {"amr..max_level=2"}); }),
            "command line: argument \"amr..max_level=2\": expected \"section.key=value\" "
            "with a key of letters, digits, '_' or '-' joined by at most 7 dots, got "
            "\"amr..max_level\"");
  EXPECT_EQ(error_of([] { deck_of("", {"=2"}); }),
            "command line: argument \"=2\": expected \"section.key=value\" with a key of "
            "letters, digits, '_' or '-' joined by at most 7 dots, got \"\"");
}

TEST(Deck, DeckRejectsOverrideThatReplacesSectionOrValueStructure) {
  EXPECT_EQ(
      error_of([] { deck_of("[amr]\nmax_level = 1\n", {"amr=3"}); }),
      "command line: argument \"amr=3\": amr: is a section of the deck, expected a key "
      "of it (\"amr.name=value\")");
  EXPECT_EQ(
      error_of([] { deck_of("[amr]\nmax_level = 1\n", {"amr.max_level.x=3"}); }),
      "command line: argument \"amr.max_level.x=3\": amr.max_level.x: amr.max_level is "
      "a value (t.toml:2), not a section");
}

TEST(Deck, DeckMessagesLocateOverriddenValueOnCommandLine) {
  const Deck deck = deck_of("[amr]\nmax_level = 1\n", {"amr.max_level=three"});
  EXPECT_EQ(error_of([&] { deck.get<int>("amr.max_level", 0); }),
            "command line: argument \"amr.max_level=three\": amr.max_level: expected an "
            "integer, got a string (\"three\")");
  EXPECT_EQ(
      error_of([&] { deck.fail("amr.max_level", "expected 0 or 1"); }),
      "command line: argument \"amr.max_level=three\": amr.max_level: expected 0 or 1");
}

// ---------------------------------------------------------------------------------------------
// Deck: unknown keys

TEST(Deck, DeckReportsUnknownKeyWithSuggestion) {
  const Deck deck = deck_of(
      "[amr]\n"
      "max_level = 1\n"
      "blocking_factr = 8\n");
  deck.get<int>("amr.max_level", 0);
  deck.get<int>("amr.blocking_factor", 8);
  EXPECT_EQ(
      error_of([&] { deck.check_all_used(); }),
      "t.toml:3: amr.blocking_factr: unknown key (did you mean amr.blocking_factor?)");
}

TEST(Deck, DeckPrefersSuggestionFromTheSameSection) {
  const Deck deck = deck_of("[amr]\nn_prop = 1\n");
  deck.get<int>("am.n_prop", 0);     // one edit away, but in another section
  deck.get<int>("amr.n_proper", 1);  // two edits away, in the same section
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }),
            "t.toml:2: amr.n_prop: unknown key (did you mean amr.n_proper?)");
}

TEST(Deck, DeckSuggestsKeyOfAnotherSectionWhenNoneCloseInItsOwn) {
  const Deck deck = deck_of("[amrr]\nmax_level = 1\n");
  deck.get<int>("amr.max_level", 0);
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }),
            "t.toml:2: amrr.max_level: unknown key (did you mean amr.max_level?)");
}

TEST(Deck, DeckReportsUnknownKeyWithoutSuggestionWhenNothingIsClose) {
  const Deck deck = deck_of("[amr]\nmax_level = 1\nfrobnicate = true\n");
  deck.get<int>("amr.max_level", 0);
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }),
            "t.toml:3: amr.frobnicate: unknown key");
}

TEST(Deck, DeckReportsFirstUnknownKeyInFileOrder) {
  const Deck deck = deck_of(
      "zeta = 1\n"
      "[time]\n"
      "cfl = 0.5\n"
      "[amr]\n"
      "b = 2\n"
      "inner = {second = 1, first = 2}\n");
  deck.get<int>("zeta", 0);
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }), "t.toml:3: time.cfl: unknown key");
  deck.get<double>("time.cfl", 0.0);
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }), "t.toml:5: amr.b: unknown key");
  deck.get<int>("amr.b", 0);
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }),
            "t.toml:6: amr.inner.second: unknown key");
  deck.get<int>("amr.inner.second", 0);
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }),
            "t.toml:6: amr.inner.first: unknown key");
  deck.get<int>("amr.inner.first", 0);
  EXPECT_NO_THROW(deck.check_all_used());
}

TEST(Deck, DeckReportsUnreadOverrideAfterFileKeys) {
  const Deck deck = deck_of("[amr]\nmax_level = 1\n", {"amr.n_propr=2"});
  EXPECT_EQ(error_of([&] { deck.check_all_used(); }),
            "t.toml:2: amr.max_level: unknown key");
  deck.get<int>("amr.max_level", 0);
  deck.get<int>("amr.n_proper", 1);
  EXPECT_EQ(
      error_of([&] { deck.check_all_used(); }),
      "command line: argument \"amr.n_propr=2\": amr.n_propr: unknown key (did you mean "
      "amr.n_proper?)");
}

// ---------------------------------------------------------------------------------------------
// Deck: echo

TEST(Deck, DeckEchoListsEveryKeyReadSortedWithDefaults) {
  const Deck deck = deck_of("[time]\ncfl = 1\n[amr]\nmax_level = 2\n", {"io.name=swirl"});
  deck.get<int>("amr.max_level", 0);
  deck.get<double>("time.cfl", 0.7);
  deck.get<double>("time.stop_time", 1e300);
  deck.get<std::vector<int>>("domain.n_cell", {64, 64});
  deck.get<std::vector<bool>>("domain.periodic", {true, false});
  deck.get<std::string>("io.name", "x");
  deck.get<std::string>("io.title", "say \"hi\"");
  deck.get<double>("time.fixed_dt", 0);
  deck.get<double>("time.small", 1e-7);
  deck.get<double>("time.tenth", 0.1);
  EXPECT_EQ(deck.echo(),
            "amr.max_level = 2\n"
            "domain.n_cell = [64, 64]\n"
            "domain.periodic = [true, false]\n"
            "io.name = \"swirl\"\n"
            "io.title = \"say \\\"hi\\\"\"\n"
            "time.cfl = 1.0\n"
            "time.fixed_dt = 0.0\n"
            "time.small = 1e-07\n"
            "time.stop_time = 1e+300\n"
            "time.tenth = 0.1\n");
  EXPECT_EQ(deck.used().size(), 10u);
  EXPECT_EQ(deck.used().at("time.stop_time"), "1e+300");
}

TEST(Deck, DeckEchoIsValidTomlThatReadsBackTheSameValues) {
  const Deck deck = deck_of("[time]\ncfl = 0.3\n");
  deck.get<double>("time.cfl", 0.7);
  deck.get<std::vector<double>>("domain.prob_hi", {1.0 / 3, 2.0});
  const Deck again = deck_of(deck.echo());
  EXPECT_EQ(again.get<double>("time.cfl", 0.0), 0.3);
  EXPECT_EQ(again.get<std::vector<double>>("domain.prob_hi", {}),
            (std::vector<double>{1.0 / 3, 2.0}));
}

// ---------------------------------------------------------------------------------------------
// read_amr_config

TEST(AmrConfig, AmrConfigReads2DDeckWithDefaults) {
  const AmrConfig c = read_amr_config(deck_of(kDomain2D));
  EXPECT_EQ(c.geom0.dim, 2);
  EXPECT_EQ(c.geom0.domain, Box({0, 0, 0}, {63, 63, 0}));
  EXPECT_DOUBLE_EQ(c.geom0.dx[0], 1.0 / 64);
  EXPECT_DOUBLE_EQ(c.geom0.dx[1], 1.0 / 64);
  EXPECT_DOUBLE_EQ(c.geom0.dx[2], 1.0 / 64);
  EXPECT_EQ(c.geom0.prob_lo[2], 0.0);
  EXPECT_TRUE(c.geom0.periodic[0]);
  EXPECT_TRUE(c.geom0.periodic[1]);
  EXPECT_FALSE(c.geom0.periodic[2]);
  EXPECT_EQ(c.max_level, 0);
  EXPECT_TRUE(c.ref_ratio.empty());
  EXPECT_EQ(c.blocking_factor, 8);
  EXPECT_EQ(c.max_grid_size, 32);
  EXPECT_EQ(c.n_error_buf, 1);
  EXPECT_EQ(c.regrid_interval, 2);
  EXPECT_EQ(c.grid_eff, 0.7);
  EXPECT_EQ(c.n_proper, 1);
  EXPECT_EQ(c.cfl, 0.7);
  EXPECT_EQ(c.max_step, 10);
  EXPECT_EQ(c.stop_time, 1e300);
  EXPECT_EQ(c.fixed_dt, 0.0);
}

TEST(AmrConfig, AmrConfigReads3DDeckWithRatioPerLevel) {
  const AmrConfig c =
      read_amr_config(deck_of("[domain]\n"
                              "dim = 3\n"
                              "n_cell = [32, 64, 16]\n"
                              "prob_lo = [-1, 0, 0]\n"
                              "prob_hi = [1, 4, 0.5]\n"
                              "periodic = [true, false, true]\n"
                              "[amr]\n"
                              "max_level = 2\n"
                              "ref_ratio = [4, 2]\n"
                              "blocking_factor = 16\n"
                              "max_grid_size = 64\n"
                              "[time]\n"
                              "fixed_dt = 0.01\n"));
  EXPECT_EQ(c.geom0.dim, 3);
  EXPECT_EQ(c.geom0.domain, Box({0, 0, 0}, {31, 63, 15}));
  EXPECT_DOUBLE_EQ(c.geom0.dx[0], 2.0 / 32);
  EXPECT_DOUBLE_EQ(c.geom0.dx[1], 4.0 / 64);
  EXPECT_DOUBLE_EQ(c.geom0.dx[2], 0.5 / 16);
  EXPECT_EQ(c.geom0.prob_lo[0], -1.0);
  EXPECT_FALSE(c.geom0.periodic[1]);
  EXPECT_TRUE(c.geom0.periodic[2]);
  EXPECT_EQ(c.ref_ratio, (std::vector<int>{4, 2}));
  EXPECT_EQ(c.geom(2).domain, Box({0, 0, 0}, {255, 511, 127}));
  EXPECT_EQ(c.fixed_dt, 0.01);
}

TEST(AmrConfig, AmrConfigRepeatsSingleRatioForEveryLevel) {
  const AmrConfig c = read_amr_config(deck_of(kDomain2D + "[amr]\nmax_level = 3\n"));
  EXPECT_EQ(c.ref_ratio, (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(c.geom(3).domain, Box({0, 0, 0}, {511, 511, 0}));
  EXPECT_EQ(c.ratio(0), IntVect(2, 2, 1));
}

TEST(AmrConfig, AmrConfigEchoesEveryKeyIncludingDefaults) {
  const Deck deck = deck_of(kDomain2D);
  read_amr_config(deck);
  std::vector<std::string> keys;
  for (const auto& kv : deck.used())
    keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "amr.blocking_factor", "amr.grid_eff", "amr.max_grid_size",
                      "amr.max_level", "amr.n_error_buf", "amr.n_proper", "amr.ref_ratio",
                      "amr.regrid_interval", "domain.dim", "domain.n_cell",
                      "domain.periodic", "domain.prob_hi", "domain.prob_lo", "time.cfl",
                      "time.fixed_dt", "time.max_step", "time.stop_time"}));
  EXPECT_NE(deck.echo().find("domain.prob_hi = [1.0, 1.0]\n"), std::string::npos);
  EXPECT_NE(deck.echo().find("domain.periodic = [true, true]\n"), std::string::npos);
  EXPECT_NE(deck.echo().find("amr.ref_ratio = 2\n"), std::string::npos);
  EXPECT_NE(deck.echo().find("time.cfl = 0.7\n"), std::string::npos);
  EXPECT_NO_THROW(deck.check_all_used());
}

TEST(AmrConfig, AmrConfigReportsTypeErrorOfItsKeys) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_level = 1.5\n"),
            "t.toml:4: amr.max_level: expected an integer, got a float (1.5)");
}

TEST(AmrConfig, AmrConfigRejectsDimOtherThan2Or3) {
  EXPECT_EQ(config_error("[domain]\ndim = 1\nn_cell = [64]\n"),
            "t.toml:2: domain.dim: expected 2 or 3, got 1");
}

TEST(AmrConfig, AmrConfigRequiresNCell) {
  EXPECT_EQ(
      config_error("[domain]\ndim = 2\n"),
      "t.toml: domain.n_cell: missing required key (expected an array of integers)");
}

TEST(AmrConfig, AmrConfigRejectsNCellOfWrongLength) {
  EXPECT_EQ(
      config_error("[domain]\nn_cell = [64, 64, 64]\n"),
      "t.toml:2: domain.n_cell: expected an array of 2 integers (one per direction, "
      "domain.dim = 2), got [64, 64, 64]");
}

TEST(AmrConfig, AmrConfigRejectsNonPositiveNCell) {
  EXPECT_EQ(
      config_error("[domain]\nn_cell = [64, 0]\n"),
      "t.toml:2: domain.n_cell: expected cell counts in [1, 536870911], got [64, 0]");
}

TEST(AmrConfig, AmrConfigRejectsProbLoAndProbHiOfWrongLength) {
  EXPECT_EQ(
      config_error(kDomain2D + "prob_lo = [0.0]\n"),
      "t.toml:3: domain.prob_lo: expected an array of 2 numbers (one per direction, "
      "domain.dim = 2), got [0.0]");
  EXPECT_EQ(
      config_error(kDomain2D + "prob_hi = [1, 1, 1]\n"),
      "t.toml:3: domain.prob_hi: expected an array of 2 numbers (one per direction, "
      "domain.dim = 2), got [1.0, 1.0, 1.0]");
}

TEST(AmrConfig, AmrConfigRejectsNonFiniteProbLo) {
  EXPECT_EQ(config_error(kDomain2D + "prob_lo = [-inf, 0]\n"),
            "t.toml:3: domain.prob_lo: expected finite numbers, got [-inf, 0.0]");
}

TEST(AmrConfig, AmrConfigRejectsProbHiNotAboveProbLo) {
  EXPECT_EQ(config_error(kDomain2D + "prob_lo = [0, 2]\nprob_hi = [1, 2]\n"),
            "t.toml:4: domain.prob_hi: expected domain.prob_hi > domain.prob_lo in every "
            "direction, got [1.0, 2.0] with domain.prob_lo = [0.0, 2.0]");
}

TEST(AmrConfig, AmrConfigRejectsPeriodicOfWrongLength) {
  EXPECT_EQ(
      config_error(kDomain2D + "periodic = [true, true, false]\n"),
      "t.toml:3: domain.periodic: expected an array of 2 booleans (one per direction, "
      "domain.dim = 2), got [true, true, false]");
}

TEST(AmrConfig, AmrConfigRejectsNegativeMaxLevel) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_level = -1\n"),
            "t.toml:4: amr.max_level: expected a non-negative integer, got -1");
}

TEST(AmrConfig, AmrConfigRejectsRefRatioOtherThan2Or4) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_level = 1\nref_ratio = 3\n"),
            "t.toml:5: amr.ref_ratio: expected 2 or 4, got 3");
  EXPECT_EQ(
      config_error(kDomain2D + "[amr]\nmax_level = 2\nref_ratio = [2, 8]\n"),
      "t.toml:5: amr.ref_ratio: expected 2 or 4 for every level (element 1), got 8");
}

TEST(AmrConfig, AmrConfigRejectsRefRatioListNotOfLengthMaxLevel) {
  EXPECT_EQ(
      config_error(kDomain2D + "[amr]\nmax_level = 3\nref_ratio = [2, 2]\n"),
      "t.toml:5: amr.ref_ratio: expected a single integer or an array of 3 (one per "
      "level below amr.max_level = 3), got [2, 2]");
  EXPECT_EQ(
      config_error(kDomain2D + "[amr]\nmax_level = 1\nref_ratio = [2, 2]\n"),
      "t.toml:5: amr.ref_ratio: expected a single integer or an array of 1 (one per "
      "level below amr.max_level = 1), got [2, 2]");
}

TEST(AmrConfig, AmrConfigRejectsRefRatioOfWrongType) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_level = 1\nref_ratio = \"2\"\n"),
            "t.toml:5: amr.ref_ratio: expected an integer, got a string (\"2\")");
}

TEST(AmrConfig, AmrConfigRejectsMaxLevelBeyondIntIndices) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_level = 40\nblocking_factor = 2\n"),
            "t.toml:4: amr.max_level: expected at most 22 (level 23 would have 536870912 "
            "cells along x, more than 536870911 for int indices), got 40");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_level = 2000000000\n"),
            "t.toml:4: amr.max_level: expected at most 22 (level 23 would have 536870912 "
            "cells along x, more than 536870911 for int indices), got 2000000000");
}

TEST(AmrConfig, AmrConfigRejectsBlockingFactorNotMultipleOfRatio) {
  EXPECT_EQ(
      config_error(kDomain2D + "[amr]\nmax_level = 2\nref_ratio = [2, 4]\n" +
                   "blocking_factor = 2\nmax_grid_size = 32\n"),
      "t.toml:6: amr.blocking_factor: expected a multiple of every amr.ref_ratio (4), "
      "got 2");
  EXPECT_EQ(
      config_error(kDomain2D + "[amr]\nmax_level = 1\nref_ratio = 4\n" +
                   "blocking_factor = 6\n"),
      "t.toml:6: amr.blocking_factor: expected a multiple of every amr.ref_ratio (4), "
      "got 6");
}

TEST(AmrConfig, AmrConfigAcceptsBlockingFactorSmallerThanRatioWithoutRefinement) {
  const AmrConfig c = read_amr_config(deck_of(
      kDomain2D + "[amr]\nref_ratio = 4\nblocking_factor = 2\nmax_grid_size = 2\n"));
  EXPECT_EQ(c.blocking_factor, 2);
}

TEST(AmrConfig, AmrConfigRejectsNonPositiveBlockingFactor) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nblocking_factor = 0\n"),
            "t.toml:4: amr.blocking_factor: expected a positive integer, got 0");
}

TEST(AmrConfig, AmrConfigRejectsNCellNotMultipleOfBlockingFactor) {
  EXPECT_EQ(
      config_error("[domain]\nn_cell = [64, 20]\n"),
      "t.toml:2: domain.n_cell: expected a multiple of amr.blocking_factor (8) in every "
      "direction, got [64, 20]");
}

TEST(AmrConfig, AmrConfigRejectsMaxGridSizeNotMultipleOfBlockingFactor) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nblocking_factor = 8\nmax_grid_size = 20\n"),
            "t.toml:5: amr.max_grid_size: expected a positive multiple of "
            "amr.blocking_factor (8), got 20");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nmax_grid_size = 0\n"),
            "t.toml:4: amr.max_grid_size: expected a positive multiple of "
            "amr.blocking_factor (8), got 0");
}

TEST(AmrConfig, AmrConfigRejectsGridEffOutsideUnitInterval) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\ngrid_eff = 0\n"),
            "t.toml:4: amr.grid_eff: expected a number in (0, 1], got 0.0");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\ngrid_eff = 1.5\n"),
            "t.toml:4: amr.grid_eff: expected a number in (0, 1], got 1.5");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\ngrid_eff = nan\n"),
            "t.toml:4: amr.grid_eff: expected a number in (0, 1], got nan");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\ngrid_eff = 1\n"), "(no error)");
}

TEST(AmrConfig, AmrConfigRejectsCflOutsideUnitInterval) {
  EXPECT_EQ(config_error(kDomain2D + "[time]\ncfl = 1.01\n"),
            "t.toml:4: time.cfl: expected a number in (0, 1], got 1.01");
  EXPECT_EQ(config_error(kDomain2D + "[time]\ncfl = -0.5\n"),
            "t.toml:4: time.cfl: expected a number in (0, 1], got -0.5");
}

TEST(AmrConfig, AmrConfigRejectsNegativeErrorBuffer) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nn_error_buf = -1\n"),
            "t.toml:4: amr.n_error_buf: expected a non-negative integer, got -1");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nn_error_buf = 0\n"), "(no error)");
}

TEST(AmrConfig, AmrConfigRejectsProperNestingBelowOne) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nn_proper = 0\n"),
            "t.toml:4: amr.n_proper: expected a positive integer, got 0");
}

TEST(AmrConfig, AmrConfigRejectsNegativeRegridInterval) {
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nregrid_interval = -2\n"),
            "t.toml:4: amr.regrid_interval: expected a non-negative integer, got -2");
  EXPECT_EQ(config_error(kDomain2D + "[amr]\nregrid_interval = 0\n"), "(no error)");
}

TEST(AmrConfig, AmrConfigRejectsNegativeMaxStep) {
  EXPECT_EQ(config_error(kDomain2D + "[time]\nmax_step = -1\n"),
            "t.toml:4: time.max_step: expected a non-negative integer, got -1");
}

TEST(AmrConfig, AmrConfigRejectsNonPositiveStopTime) {
  EXPECT_EQ(config_error(kDomain2D + "[time]\nstop_time = 0\n"),
            "t.toml:4: time.stop_time: expected a positive number, got 0.0");
}

TEST(AmrConfig, AmrConfigRejectsNegativeOrInfiniteFixedDt) {
  EXPECT_EQ(
      config_error(kDomain2D + "[time]\nfixed_dt = -0.1\n"),
      "t.toml:4: time.fixed_dt: expected a finite non-negative number (0: use the CFL "
      "step), got -0.1");
  EXPECT_EQ(
      config_error(kDomain2D + "[time]\nfixed_dt = inf\n"),
      "t.toml:4: time.fixed_dt: expected a finite non-negative number (0: use the CFL "
      "step), got inf");
}

TEST(AmrConfig, AmrConfigLocatesOverriddenKeyOnCommandLine) {
  EXPECT_EQ(
      config_error(kDomain2D + "[amr]\nmax_grid_size = 32\n", {"amr.max_grid_size=20"}),
      "command line: argument \"amr.max_grid_size=20\": amr.max_grid_size: expected a "
      "positive multiple of amr.blocking_factor (8), got 20");
  const AmrConfig c =
      read_amr_config(deck_of(kDomain2D, {"amr.max_level=2", "time.cfl=0.5"}));
  EXPECT_EQ(c.max_level, 2);
  EXPECT_EQ(c.cfl, 0.5);
}

}  // namespace
}  // namespace pw
