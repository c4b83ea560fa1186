// The [poisson] section: defaults, and every bad setting a deck error naming its line and
// key.
#include <gtest/gtest.h>

#include <limits>

#include "amr/box_set.hpp"
#include "solver/mg_config.hpp"

using namespace pw;

namespace {

std::string error_of(const std::string& text, bool bc = false) {
  try {
    const Deck deck = Deck::parse(text, "p.toml");
    LevelGeom g;
    g.dim = 2;
    g.periodic[0] = false;
    if (bc)
      read_poisson_bc(deck, g);
    else
      read_mg_config(deck);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(MgConfig, DefaultsAreTheDocumentedOnes) {
  const MgConfig c = read_mg_config(Deck::parse("", "p.toml"));
  EXPECT_EQ(c.rtol, 1e-10);
  EXPECT_EQ(c.max_cycles, 50);
  EXPECT_EQ(c.pre_smooth, 2);
  EXPECT_FALSE(c.f_cycle);
  EXPECT_TRUE(c.linear_prolongation);
  EXPECT_EQ(c.level_cycles, 1);
  EXPECT_EQ(c.gather_cells, -1);  // by the backend and the rank count
  EXPECT_EQ(gather_limit(c, 2), serial_launches() ? 512 : 4096);
  EXPECT_EQ(gather_limit(c, 1),
            detail::host_exec() ? std::numeric_limits<int>::max() : 4096);
  const MgConfig none =
      read_mg_config(Deck::parse("[poisson]\ngather_cells = 0\n", "p.toml"));
  EXPECT_EQ(none.gather_cells, 0);
  EXPECT_EQ(gather_limit(none, 1), 0);  // what the deck says, at any rank count
  EXPECT_EQ(gather_limit(none, 2), 0);
}

TEST(MgConfig, BadSettingsAreDeckErrorsWithLineAndKey) {
  EXPECT_EQ(error_of("[poisson]\nrtol = -1e-3\n"),
            "p.toml:2: poisson.rtol: expected a finite number >= 0, got -0.001");
  EXPECT_EQ(error_of("[poisson]\nmax_cycles = 0\n"),
            "p.toml:2: poisson.max_cycles: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("[poisson]\npre_smooth = 0\npost_smooth = 0\n"),
            "p.toml:3: poisson.post_smooth: expected at least one smoothing sweep "
            "(pre_smooth + post_smooth >= 1)");
  EXPECT_EQ(error_of("[poisson]\nlevel_cycles = 0\n"),
            "p.toml:2: poisson.level_cycles: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("[poisson]\ngather_cells = -1\n"),
            "p.toml:2: poisson.gather_cells: expected an integer >= 0, got -1");
  EXPECT_EQ(error_of("[poisson]\nbottom_gather_cells = 512\n"),
            "p.toml:2: poisson.bottom_gather_cells: renamed poisson.gather_cells (it now "
            "holds every grid below a level with at most that many cells, not only the "
            "bottom)");
  EXPECT_EQ(error_of("[poisson]\ncycle = \"W\"\n"),
            "p.toml:2: poisson.cycle: expected \"V\" or \"F\", got \"W\"");
  EXPECT_EQ(error_of("[poisson]\nomega = 2.5\n"),
            "p.toml:2: poisson.omega: expected a number in (0, 2), got 2.5");
  EXPECT_EQ(error_of("[poisson]\nrtol = 1.0\n"),
            "p.toml:2: poisson.rtol: expected a relative tolerance < 1, got 1.0");
  EXPECT_EQ(
      error_of("[poisson]\nrtol = 0\natol = 0\n"),
      "p.toml:2: poisson.rtol: expected poisson.rtol or poisson.atol > 0 (both are 0)");
}

TEST(MgConfig, BadBoundaryConditionsAreDeckErrors) {
  EXPECT_EQ(
      error_of("[poisson]\nbc_lo = [\"robin\", \"periodic\"]\n", true),
      "p.toml:2: poisson.bc_lo: expected \"dirichlet\", \"neumann\" or \"periodic\", "
      "got \"robin\"");
  EXPECT_EQ(error_of("[poisson]\nbc_hi = [\"periodic\", \"periodic\"]\n", true),
            "p.toml:2: poisson.bc_hi: \"periodic\" in direction 0, which domain.periodic "
            "makes non-periodic");
  // Direction 1 is periodic: a wall there was ignored without a word.
  EXPECT_EQ(
      error_of("[poisson]\nbc_lo = [\"dirichlet\", \"dirichlet\"]\n", true),
      "p.toml:2: poisson.bc_lo: \"dirichlet\" in direction 1, which domain.periodic "
      "makes periodic: give \"periodic\"");
  EXPECT_EQ(error_of("[poisson]\nbc_lo = [\"neumann\"]\n", true),
            "p.toml:2: poisson.bc_lo: expected 2 names (one per direction)");
}

TEST(MgConfig, NeumannOrPeriodicEverywhereIsSingular) {
  LevelGeom g;
  g.dim = 2;
  g.periodic[0] = false;
  PoissonBc bc = read_poisson_bc(
      Deck::parse("[poisson]\nbc_lo = [\"neumann\", \"periodic\"]\nbc_hi = [\"neumann\", "
                  "\"periodic\"]\n",
                  "p.toml"),
      g);
  EXPECT_TRUE(bc.singular(g));
  bc.hi[0].kind = BcKind::dirichlet;
  EXPECT_FALSE(bc.singular(g));
}
