// HDF5 dumps at 1, 2 and 4 ranks: the file read back (HDF5 C API, every rank reading
// serially) holds exactly the hierarchy that was written: every level's boxes, owners,
// offsets, costs, every data value and the vtkGhostType mask, also when some rank owns no
// patch of a level.
#include <gtest/gtest.h>

#include <hdf5.h>
#include <algorithm>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "amr/code_version.hpp"
#include "amr/io/chombo_writer.hpp"
#include "amr/io/h5_util.hpp"
#include "app/simulation.hpp"
#include "tests/app/run_testing.hpp"

using namespace pw;

namespace {

template <class T>
std::vector<T> read_all(hid_t file, const std::string& path, hid_t type) {
  const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  if (d < 0) return {};
  const hid_t s = H5Dget_space(d);
  std::vector<T> v(H5Sget_simple_extent_npoints(s));
  H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

/// A `boxes` dataset as 2*dim int32 per box (Chombo's compound).
std::vector<int> read_boxes(hid_t file, const std::string& path, int dim) {
  const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  if (d < 0) return {};
  const hid_t s = H5Dget_space(d);
  std::vector<int> v(2 * dim * H5Sget_simple_extent_npoints(s));
  H5Dread(d, h5::box_type(dim), H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Sclose(s);
  H5Dclose(d);
  return v;
}

template <class T>
T read_attr(hid_t obj, const char* name, hid_t type) {
  T v{};
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  EXPECT_GE(a, 0) << name;
  H5Aread(a, type, &v);
  H5Aclose(a);
  return v;
}

std::string read_string_attr(hid_t obj, const char* name) {
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  const hid_t t = H5Aget_type(a);
  EXPECT_EQ(H5Tis_variable_str(t), 0) << name << " must be a fixed-length string";
  std::string s(H5Tget_size(t), '\0');
  H5Aread(a, t, s.data());
  H5Tclose(t);
  H5Aclose(a);
  return s.c_str();
}

/// Compare the dump at `path` with the hierarchy of `sim` (its final state).
void expect_dump_equals(const std::string& path, const Simulation& sim, int steps) {
  const Hierarchy& h = sim.hierarchy();
  const int dim = h.config().geom0.dim;
  const int rank = h.comm().rank();
  const int ncomp = h.ncomp();
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0) << path;
  EXPECT_EQ(read_attr<int>(f, "num_levels", H5T_NATIVE_INT), h.finest_level() + 1);
  EXPECT_EQ(read_attr<int>(f, "num_components", H5T_NATIVE_INT), ncomp);
  EXPECT_EQ(read_attr<int>(f, "iteration", H5T_NATIVE_INT), steps);
  EXPECT_EQ(read_attr<double>(f, "time", H5T_NATIVE_DOUBLE), h.time());
  EXPECT_EQ(read_string_attr(f, "component_0"), "phi0");
  EXPECT_NE(read_string_attr(f, "deck").find("output.write = true"), std::string::npos);
  // The version the executable reports, git revision included (amr/code_version.hpp).
  EXPECT_EQ(read_string_attr(f, "code_version"), code_version());
  const hid_t global = H5Gopen2(f, "Chombo_global", H5P_DEFAULT);
  EXPECT_EQ(read_attr<int>(global, "SpaceDim", H5T_NATIVE_INT), dim);
  H5Gclose(global);

  std::vector<double> load(h.comm().size(), 0.0);
  for (int l = 0; l <= h.finest_level(); ++l) {
    SCOPED_TRACE("level " + std::to_string(l));
    const Level& L = h.level(l);
    const std::string g = "/level_" + std::to_string(l) + "/";
    const size_t np = L.layout.size();
    const auto boxes = read_boxes(f, g + "boxes", dim);
    ASSERT_EQ(boxes.size(), 2 * dim * np);
    for (size_t p = 0; p < np; ++p)
      for (int d = 0; d < dim; ++d) {
        EXPECT_EQ(boxes[2 * dim * p + d], L.layout.boxes[p].lo[d]);
        EXPECT_EQ(boxes[2 * dim * p + dim + d], L.layout.boxes[p].hi[d]);
      }
    EXPECT_EQ(read_all<int>(f, g + "Processors", H5T_NATIVE_INT32), L.layout.owner);
    const auto offsets =
        read_all<std::int64_t>(f, g + "data:offsets=0", H5T_NATIVE_INT64);
    const auto cells = cell_offsets(L.layout.boxes);
    ASSERT_EQ(offsets.size(), np + 1);
    for (size_t p = 0; p <= np; ++p)
      EXPECT_EQ(offsets[p], cells[p] * ncomp);
    const auto cost = read_all<double>(f, g + "cost", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(cost.size(), np);
    for (size_t p = 0; p < np; ++p) {
      EXPECT_EQ(cost[p], dump_cost(h.config(), l, L.layout.boxes[p]));
      load[L.layout.owner[p]] += cost[p];
    }
    const auto measured = read_all<double>(f, g + "measured_time", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(measured.size(), np);
    for (double t : measured)
      EXPECT_GE(t, 0.0);
    const auto data = read_all<double>(f, g + "data:datatype=0", H5T_NATIVE_DOUBLE);
    ASSERT_EQ(long(data.size()), cells[np] * ncomp);
    EXPECT_EQ(read_all<double>(f, g + "data_datatype_0", H5T_NATIVE_DOUBLE), data);
    const auto ghost = read_all<unsigned char>(f, g + "vtkGhostType", H5T_NATIVE_UINT8);
    ASSERT_EQ(long(ghost.size()), cells[np]);
    // Every rank checks the values of its own patches against its device data.
    for (size_t p = 0; p < np; ++p) {
      if (!L.owns(int(p), rank)) continue;
      const Box& b = L.layout.boxes[p];
      const auto host =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), L.u_new[p].data);
      const IntVect lo = L.u_new[p].box.lo;
      long at = offsets[p], bad = 0;
      for (int c = 0; c < ncomp; ++c)
        for (int k = b.lo[2]; k <= b.hi[2]; ++k)
          for (int j = b.lo[1]; j <= b.hi[1]; ++j)
            for (int i = b.lo[0]; i <= b.hi[0]; ++i)
              bad += data[at++] != host(c, k - lo[2], j - lo[1], i - lo[0]);
      EXPECT_EQ(bad, 0) << "patch " << p;
    }
    // Ghost types: hidden (with VTK's HIDDENCELL bit, 32, which ParaView's filters skip)
    // exactly on the cells under the next finer level.
    EXPECT_TRUE(kCoveredCell & 32);
    long hidden = 0, expected_hidden = 0;
    for (unsigned char x : ghost) {
      EXPECT_TRUE(x == 0 || x == kCoveredCell) << int(x);
      hidden += x == kCoveredCell;
    }
    if (l < h.finest_level())
      for (const Box& fb : h.level(l + 1).layout.boxes)
        expected_hidden += coarsen(fb, h.config().ratio(l)).num_cells();
    EXPECT_EQ(hidden, expected_hidden);
  }
  EXPECT_EQ(read_all<double>(f, "/rank_load", H5T_NATIVE_DOUBLE), load);
  const hid_t balance = H5Gopen2(f, "balance", H5P_DEFAULT);
  EXPECT_EQ(read_string_attr(balance, "method"), "round_robin");
  const double imbalance = read_attr<double>(balance, "imbalance", H5T_NATIVE_DOUBLE);
  const double max_load = *std::max_element(load.begin(), load.end());
  double total = 0;
  for (double x : load)
    total += x;
  // The last balancing step's loads are those of the dump (no regrid since).
  EXPECT_NEAR(imbalance, max_load / (total / double(load.size())), 1e-12);
  H5Gclose(balance);
  H5Fclose(f);
}

std::string dump_dir(const std::string& name) {
  return "dump_test_" + name + "_np" + std::to_string(Comm().size());
}

}  // namespace

TEST(Dump, ReadBackEqualsWhatWasWritten2D) {
  const std::string dir = dump_dir("2d");
  const Deck deck = Deck::parse(
      pw::testing::swirl_deck(2), "test.toml",
      {"output.write=true", "output.dir=" + dir, "output.interval=4", "time.max_step=6"});
  Simulation sim(deck, Comm());
  const RunResult r = sim.run(false);
  ASSERT_EQ(r.dumps.size(), 3u);  // steps 0, 4 and the end
  EXPECT_EQ(r.dumps.back(), dir + "/plt_00006.h5");
  EXPECT_GE(r.finest_level, 1);
  for (const auto& p : r.dumps) {
    EXPECT_TRUE(std::filesystem::exists(p)) << p;
    EXPECT_FALSE(std::filesystem::exists(p + ".tmp")) << p;
  }
  EXPECT_TRUE(std::filesystem::exists(dir + "/plt_00006.xmf"));
  expect_dump_equals(r.dumps.back(), sim, 6);
}

TEST(Dump, RanksOwningNoPatchTakePart) {
  // One 32^2 patch on level 0, so at 2 and 4 ranks some ranks own nothing there.
  const std::string dir = dump_dir("one_patch");
  const Deck deck = Deck::parse(
      pw::testing::swirl_deck(2), "test.toml",
      {"output.write=true", "output.dir=" + dir, "output.prefix=one", "time.max_step=2",
       "amr.max_grid_size=32", "amr.max_level=1", "advection.tag_threshold=[1.05]"});
  Simulation sim(deck, Comm());
  const RunResult r = sim.run(false);
  ASSERT_EQ(r.dumps.size(), 1u);
  EXPECT_EQ(sim.hierarchy().level(0).layout.size(), 1u);
  expect_dump_equals(r.dumps.back(), sim, 2);
}

TEST(Dump, ReadBackEqualsWhatWasWritten3D) {
  const std::string dir = dump_dir("3d");
  const Deck deck =
      Deck::parse(pw::testing::swirl_deck(3), "test.toml",
                  {"output.write=true", "output.dir=" + dir, "time.max_step=2"});
  Simulation sim(deck, Comm());
  const RunResult r = sim.run(false);
  ASSERT_EQ(r.dumps.size(), 1u);
  expect_dump_equals(r.dumps.back(), sim, 2);
}

TEST(Dump, BadOutputKeysAreDeckErrors) {
  const auto fails = [](const std::string& o, const std::string& what) {
    try {
      Deck deck = Deck::parse(pw::testing::swirl_deck(2), "test.toml", {o});
      Simulation sim(deck, Comm());
      ADD_FAILURE() << o << " was accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  fails("output.interval=-1", "output.interval: expected a number of coarse steps >= 0");
  fails("output.prefix=\"a/b\"", "output.prefix: expected a non-empty file name prefix");
  fails("output.write=3", "output.write");
}
