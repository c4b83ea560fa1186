#include "amr/io/checkpoint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "amr/deck.hpp"
#include "amr/io/checkpoint_checks.hpp"
#include "amr/io/checksum.hpp"
#include "amr/io/chombo_writer.hpp"
#include "amr/io/h5_util.hpp"
#include "amr/io/rank_errors.hpp"

namespace pw {

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error(what);
}

/// Read the whole 1-D dataset `name` of group `g` (`where`: the group's name) as `n`
/// elements of `type` into `buf`, and check it against its stored checksum.
void read_verified(hid_t g, const std::string& where, const std::string& name, hid_t type,
                   hsize_t n, void* buf) {
  const h5::Id d = h5::open_dataset(g, name);
  if (h5::extent(d) != n) bad(where + "/" + name + " has the wrong size");
  if (n > 0) h5::read_all(d, type, buf);
  std::uint64_t stored = 0;
  try {
    stored = h5::read_checksum(d);
  } catch (const std::runtime_error& e) {
    bad(where + "/" + name + ": " + e.what());
  }
  if (h5::fnv1a(buf, n * H5Tget_size(type)) != stored)
    bad(where + "/" + name + ": fails its checksum (the file is corrupt)");
}

}  // namespace

Checkpoint::Checkpoint(const std::string& path, const AmrConfig& cfg,
                       const std::vector<std::string>& component_names, int nghost,
                       const Comm& comm)
    : path_(path), names_(component_names) {
  std::string why;
  try {
    read_metadata(cfg, component_names, nghost, comm);
  } catch (const std::exception& e) {
    why = e.what();
  }
  // Every rank reads the same metadata; if any fails, all stop together. Only then is
  // the field data read, each rank its own patches.
  why = first_error(comm, why);
  if (why.empty()) why = first_error(comm, read_data(comm));
  if (!why.empty()) throw UserError(fmt::format("restart: {}: {}", path_, why));
}

std::string Checkpoint::nothing_to_do(const AmrConfig& cfg) const {
  if (step_ >= cfg.max_step)
    return fmt::format(
        "restart: {}: the dump is at step {}, time.max_step is {}: nothing to run, no "
        "file written",
        path_, step_, cfg.max_step);
  if (time() >= cfg.stop_time * (1 - 1e-12))
    return fmt::format(
        "restart: {}: the dump is at time {:.17g}, time.stop_time is {:.17g}: nothing "
        "to run, no file written",
        path_, time(), cfg.stop_time);
  return "";
}

namespace {

std::string describe(const CodeUnits& u) {
  if (!u.set()) return "none (dimensionless)";
  return fmt::format("length {:g} cm, time {:g} s, mass {:g} g", u.length, u.time,
                     u.mass);
}

}  // namespace

std::string Checkpoint::units_differ(const CodeUnits& deck) const {
  if (deck.length == units_.length && deck.time == units_.time &&
      deck.mass == units_.mass)
    return "";
  return fmt::format(
      "restart: {}: the dump's code units are {}, the deck's [units] {}: one run's dumps "
      "share one unit system (set [units] as the dump has them)",
      path_, describe(units_), describe(deck));
}

void Checkpoint::read_metadata(const AmrConfig& cfg,
                               const std::vector<std::string>& names, int nghost,
                               const Comm& comm) {
  namespace fs = std::filesystem;
  const h5::Quiet quiet;
  std::string why;
  std::error_code ec;  // the throwing overloads would skip the agreement below
  const fs::file_status status = fs::status(path_, ec);
  if (!fs::exists(status))
    why = ec && ec != std::errc::no_such_file_or_directory
              ? "cannot be read: " + ec.message()
              : "no such file";
  else if (!fs::is_regular_file(status))
    why = "not a regular file";
  else if (::access(path_.c_str(), R_OK) != 0)  // HDF5 would call it not an HDF5 file
    why = std::string("cannot be read: ") + std::strerror(errno);
  else if (H5Fis_hdf5(path_.c_str()) <= 0)
    why = "not an HDF5 file";
  else if (const int version = h5::superblock_version(path_); version < 0)
    why = "its HDF5 superblock cannot be read";
  else if (version < 2)
    // HDF5 parses such a file's object headers unchecked: a damaged one can crash it
    // before any checksum of ours is read.
    why = fmt::format(
        "in an HDF5 file format without metadata checksums (superblock version {}; "
        "dumps written before 2026-12-02 are): `h5repack --low=1 --high=1 FILE NEW` "
        "converts it to one with them, and a restart from NEW continues the run",
        version);
  // The open below is collective: a rank that cannot see the file (another file system
  // view) must not leave the others waiting in it.
  if (!why.empty() && comm.rank() > 0) why += fmt::format(" (on rank {})", comm.rank());
  why = first_error(comm, why);
  if (!why.empty()) bad(why);
  h5::Id file;
  try {
    file = h5::open_parallel(path_, comm.raw());
  } catch (const std::exception&) {
    bad("a damaged HDF5 file (truncated or corrupt): it cannot be opened");
  }
  try {
    // Nothing is read from a group before its attributes match their checksum.
    h5::verify_attributes(file, "the root group");
    const h5::Id global = h5::open_group(file, "Chombo_global");
    h5::verify_attributes(global, "Chombo_global");
    const int want_dim = cfg.geom0.dim;
    dim_ = h5::read_attr_int(global, "SpaceDim");
    if (dim_ != want_dim)
      bad(fmt::format("holds a {}D run, the deck asks for {}D (domain.dim)", dim_,
                      want_dim));
    ncomp_ = h5::read_attr_int(file, "num_components");
    std::vector<std::string> file_names;
    for (int c = 0; c < ncomp_; ++c)
      file_names.push_back(h5::read_attr_string(file, "component_" + std::to_string(c)));
    if (file_names != names)
      bad(fmt::format("holds the components [{}], the deck's physics has [{}]",
                      fmt::join(file_names, ", "), fmt::join(names, ", ")));
    if (H5Aexists(file, "length_unit") > 0)
      units_ = {h5::read_attr_double(file, "length_unit"),
                h5::read_attr_double(file, "time_unit"),
                h5::read_attr_double(file, "mass_unit")};
    const int nlev = h5::read_attr_int(file, "num_levels");
    if (nlev < 1) bad(fmt::format("num_levels is {}", nlev));
    if (nlev - 1 > cfg.max_level)
      bad(fmt::format("holds {} levels, amr.max_level = {} allows at most {}", nlev,
                      cfg.max_level, cfg.max_level + 1));

    const h5::Id ck = h5::open_group(file, "checkpoint");
    h5::verify_attributes(ck, "checkpoint");
    step_ = h5::read_attr_int(ck, "step");
    state_.cell_updates = h5::read_attr_long(ck, "cell_updates");
    state_.regrids = h5::read_attr_int(ck, "regrids");
    if (H5Aexists(ck, "balance_steps") > 0) {
      balance_steps_ = h5::read_attr_int(ck, "balance_steps");
      if (balance_steps_ < 0) bad(fmt::format("balance_steps is {}", balance_steps_));
    }
    const Box domain = h5::read_attr_box(ck, "domain", dim_);
    if (domain != cfg.geom0.domain)
      bad(fmt::format("level-0 domain {} differs from the deck's {} (domain.n_cell)",
                      to_string(domain), to_string(cfg.geom0.domain)));
    if (H5Aexists(global, "prob_lo") > 0 && H5Aexists(global, "prob_hi") > 0) {
      // Other corners give the same cells other sizes: the data would mean another run.
      const std::vector<double> lo = h5::read_attr_doubles(global, "prob_lo"),
                                hi = h5::read_attr_doubles(global, "prob_hi");
      std::vector<double> deck_lo(static_cast<size_t>(dim_)), deck_hi(deck_lo);
      for (int d = 0; d < dim_; ++d) {  // as the writer computes them
        deck_lo[size_t(d)] = cfg.geom0.prob_lo[d];
        deck_hi[size_t(d)] =
            cfg.geom0.prob_lo[d] + cfg.geom0.domain.size()[d] * cfg.geom0.dx[d];
      }
      if (lo != deck_lo || hi != deck_hi)
        bad(fmt::format(
            "holds a domain from [{}] to [{}], the deck's is from [{}] to [{}] "
            "(domain.prob_lo, domain.prob_hi)",
            fmt::join(lo, ", "), fmt::join(hi, ", "), fmt::join(deck_lo, ", "),
            fmt::join(deck_hi, ", ")));
    }
    if (nlev > 1) {
      const std::vector<int> ratios = h5::read_attr_ints(ck, "ref_ratio");
      for (int l = 0; l + 1 < nlev; ++l)
        if (l >= int(ratios.size()) || ratios[l] != cfg.ref_ratio[l])
          bad(fmt::format(
              "refinement ratio between levels {} and {} is {}, amr.ref_ratio gives {}",
              l, l + 1, l < int(ratios.size()) ? ratios[l] : 0, cfg.ref_ratio[l]));
    }
    if (H5Aexists(ck, "physics_counters") > 0)
      state_.physics_counters = h5::read_attr_longs(ck, "physics_counters");
    if (H5Aexists(ck, "initial_totals") > 0) {
      initial_totals_ = h5::read_attr_doubles(ck, "initial_totals");
      if (int(initial_totals_.size()) != ncomp_) bad("initial_totals has the wrong size");
      // The baseline of the run's conservation figures: a NaN would print as one.
      for (double t : initial_totals_)
        if (!std::isfinite(t)) bad("initial_totals holds a value that is not finite");
    }
    // A level past num_levels would be dropped without a word.
    if (H5Lexists(file, ("level_" + std::to_string(nlev)).c_str(), H5P_DEFAULT) > 0)
      bad(fmt::format("num_levels is {}, but the file holds level_{} too", nlev, nlev));

    const h5::Id box_t = h5::box_type(dim_);
    for (int l = 0; l < nlev; ++l) {
      const std::string name = "level_" + std::to_string(l);
      const h5::Id g = h5::open_group(file, name);
      h5::verify_attributes(g, name);
      const LevelGeom geom = cfg.geom(l);
      const Box pd = h5::read_attr_box(g, "prob_domain", dim_);
      if (pd != geom.domain)
        bad(fmt::format("{}: domain {} differs from the deck's {}", name, to_string(pd),
                        to_string(geom.domain)));
      for (int d = 0; d < dim_ && l == 0; ++d) {
        const std::string key = "is_periodic_" + std::to_string(d);
        if (H5Aexists(g, key.c_str()) <= 0) continue;
        const bool periodic = h5::read_attr_int(g, key) != 0;
        if (periodic != geom.periodic[d])
          bad(
              fmt::format("holds a run {}periodic in direction {}, the deck's "
                          "domain.periodic says {}",
                          periodic ? "" : "not ", d, geom.periodic[d]));
      }
      LevelClock c;
      c.t_old = h5::read_attr_double(g, "t_old");
      c.t_new = h5::read_attr_double(g, "t_new");
      c.steps = h5::read_attr_int(g, "steps");
      c.last_regrid_step = h5::read_attr_int(g, "last_regrid_step");
      state_.clocks.push_back(c);

      const hsize_t np = h5::extent(h5::open_dataset(g, "boxes"));
      if (np == 0) bad(name + ": no boxes");
      std::vector<int> raw(size_t(2 * dim_) * np);
      read_verified(g, name, "boxes", box_t, np, raw.data());
      LevelLayout layout;
      for (hsize_t p = 0; p < np; ++p) {
        Box b(IntVect{0, 0, 0}, IntVect{0, 0, 0});
        for (int d = 0; d < dim_; ++d) {
          b.lo[d] = raw[2 * dim_ * p + d];
          b.hi[d] = raw[2 * dim_ * p + dim_ + d];
        }
        layout.boxes.push_back(b);
      }
      layout.owner.resize(np);
      read_verified(g, name, "Processors", H5T_NATIVE_INT, np, layout.owner.data());
      // Each rank reads the patches it will own first: as written where that rank
      // exists, else as Hierarchy::restore would place them.
      for (size_t p = 0; p < np; ++p)
        if (layout.owner[p] < 0 || layout.owner[p] >= comm.size())
          layout.owner[p] = int(p % size_t(comm.size()));
      std::vector<std::int64_t> off(np + 1);
      read_verified(g, name, "data:offsets=0", H5T_NATIVE_INT64, np + 1, off.data());
      std::vector<std::uint64_t> sums(np);
      read_verified(g, name, "data:checksums", H5T_NATIVE_UINT64, np, sums.data());
      layouts_.push_back(std::move(layout));
      offsets_.push_back(std::move(off));
      patch_sums_.push_back(std::move(sums));
    }
    check_layouts(layouts_, cfg, nghost);
    check_clocks(state_, step_);
    for (int l = 0; l < nlev; ++l) {
      const std::string name = "level_" + std::to_string(l);
      const std::vector<std::int64_t>& off = offsets_[size_t(l)];
      const std::vector<long> cells = cell_offsets(layouts_[size_t(l)].boxes);
      for (size_t p = 0; p < off.size(); ++p)
        if (off[p] != std::int64_t(cells[p]) * ncomp_)
          bad(name + ": data:offsets=0 does not match the boxes");
      const h5::Id g = h5::open_group(file, name);
      if (h5::extent(h5::open_dataset(g, "data:datatype=0")) != hsize_t(off.back()))
        bad(name + ": data:datatype=0 has the wrong size");
    }
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    // Reader failures name what is missing or damaged; say what that means.
    if (what.find("incorrect metadata checksum") != std::string::npos)
      bad(what + " (a damaged file)");
    if (what.rfind("missing ", 0) == 0 || what.rfind("HDF5: ", 0) == 0 ||
        what.rfind("attribute ", 0) == 0)
      bad(what + " (not a complete patchwork checkpoint)");
    throw;
  }
}

std::string Checkpoint::read_data(const Comm& comm) {
  const int rank = comm.rank();
  std::string why;
  const h5::Quiet quiet;
  h5::Id file;
  try {
    file = h5::open_parallel(path_, comm.raw());
  } catch (const std::exception& e) {
    why = e.what();
  }
  // Every open succeeded or none did (a collective open); the reads below are collective
  // too, so a rank that meets an error still takes part in the rest.
  if (first_error(comm, why) != "") return why.empty() ? "cannot be read" : why;
  values_.resize(layouts_.size());
  for (size_t l = 0; l < layouts_.size(); ++l) {
    const std::string name = "level_" + std::to_string(l) + "/data:datatype=0";
    const LevelLayout& layout = layouts_[l];
    const std::vector<std::int64_t>& off = offsets_[l];
    std::vector<h5::Run> runs;
    for (size_t p = 0; p < layout.size(); ++p)
      if (layout.owner[p] == rank)
        runs.push_back({hsize_t(off[p]), hsize_t(off[p + 1] - off[p])});
    hsize_t total = 0;
    for (const h5::Run& r : runs)
      total += r.count;
    std::vector<double>& values = values_[l];
    values.assign(total, 0.0);
    try {
      const h5::Id g = h5::open_group(file, "level_" + std::to_string(l));
      h5::read_runs(h5::open_dataset(g, "data:datatype=0"), H5T_NATIVE_DOUBLE, runs,
                    values.data());
    } catch (const std::exception& e) {
      if (why.empty()) why = name + ": " + e.what();
      continue;
    }
    // Each box in turn, component-major, i fastest (as write_chombo writes them).
    size_t n = 0;
    for (size_t p = 0; p < layout.size() && why.empty(); ++p) {
      if (layout.owner[p] != rank) continue;
      const Box& b = layout.boxes[p];
      const size_t count = size_t(off[p + 1] - off[p]);
      const double* v = values.data() + n;
      n += count;
      if (h5::fnv1a(v, count * sizeof(double)) != patch_sums_[l][p]) {
        why = fmt::format(
            "{}: patch {} fails its checksum (the file is corrupt; the patch "
            "is {})",
            name, p, to_string(b));
        break;
      }
      for (size_t i = 0; i < count; ++i)
        if (!std::isfinite(v[i])) {
          const IntVect sz = b.size();
          const long cells = b.num_cells(), c = long(i) / cells, k = long(i) % cells;
          const IntVect at{b.lo[0] + int(k % sz[0]), b.lo[1] + int(k / sz[0] % sz[1]),
                           b.lo[2] + int(k / (long(sz[0]) * sz[1]))};
          std::ostringstream cell;
          cell << at;
          why = fmt::format("{}: patch {} holds {} in component {} at cell {}", name, p,
                            v[i], names_[size_t(c)], cell.str());
          break;
        }
    }
  }
  return why;
}

void Checkpoint::restore(Hierarchy& h) {
  const int ncomp = ncomp_;
  const int rank = h.comm().rank();
  const LevelReader read = [&](int l, const LevelLayout& layout, std::vector<Fab>& u) {
    const std::vector<double>& values = values_[size_t(l)];
    // Each box in turn, component-major, i fastest (as read_data keeps them).
    size_t n = 0;
    for (size_t p = 0; p < layout.size(); ++p) {
      if (layout.owner[p] != rank) continue;
      const Box& b = layout.boxes[p];
      const Fab& f = u[p];
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.data);
      const IntVect lo = f.box.lo;
      for (int c = 0; c < ncomp; ++c)
        for (int k = b.lo[2]; k <= b.hi[2]; ++k)
          for (int j = b.lo[1]; j <= b.hi[1]; ++j)
            for (int i = b.lo[0]; i <= b.hi[0]; ++i)
              host(c, k - lo[2], j - lo[1], i - lo[0]) = values[n++];
      Kokkos::deep_copy(f.data, host);
    }
  };
  h.restore(layouts_, state_, read);
  values_.clear();
  values_.shrink_to_fit();
}

}  // namespace pw
