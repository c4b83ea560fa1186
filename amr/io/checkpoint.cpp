#include "amr/io/checkpoint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Kokkos_Core.hpp>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "amr/deck.hpp"
#include "amr/io/chombo_writer.hpp"
#include "amr/io/h5_util.hpp"

namespace pw {

namespace {

/// HDF5's error stack printing off while in scope: a bad restart file is reported once,
/// as a UserError, not as a page of HDF5 diagnostics per rank.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

std::string str(const Box& b) {
  std::ostringstream s;
  s << b;
  return s.str();
}

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error(what);
}

}  // namespace

Checkpoint::Checkpoint(const std::string& path, const AmrConfig& cfg,
                       const std::vector<std::string>& component_names, const Comm& comm)
    : path_(path) {
  std::string why;
  try {
    read_metadata(cfg, component_names, comm);
  } catch (const std::exception& e) {
    why = e.what();
  }
  // Every rank reads the same metadata; if any fails, all stop together.
  if (comm.sum(long(!why.empty())) > 0)
    throw UserError(fmt::format("restart: {}: {}", path_,
                                why.empty() ? "cannot be read on another rank" : why));
}

void Checkpoint::read_metadata(const AmrConfig& cfg,
                               const std::vector<std::string>& names, const Comm& comm) {
  namespace fs = std::filesystem;
  if (!fs::exists(path_)) bad("no such file");
  if (!fs::is_regular_file(path_)) bad("not a regular file");
  const QuietHdf5 quiet;
  if (H5Fis_hdf5(path_.c_str()) <= 0) bad("not an HDF5 file");
  h5::Id file;
  try {
    file = h5::open_parallel(path_, comm.raw());
  } catch (const std::exception&) {
    bad("a damaged HDF5 file (truncated or corrupt): it cannot be opened");
  }
  try {
    const int want_dim = cfg.geom0.dim;
    dim_ = h5::read_attr_int(h5::open_group(file, "Chombo_global"), "SpaceDim");
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
    const int nlev = h5::read_attr_int(file, "num_levels");
    if (nlev < 1) bad(fmt::format("num_levels is {}", nlev));
    if (nlev - 1 > cfg.max_level)
      bad(fmt::format("holds {} levels, amr.max_level = {} allows at most {}", nlev,
                      cfg.max_level, cfg.max_level + 1));

    const h5::Id ck = h5::open_group(file, "checkpoint");
    step_ = h5::read_attr_int(ck, "step");
    state_.cell_updates = h5::read_attr_long(ck, "cell_updates");
    state_.regrids = h5::read_attr_int(ck, "regrids");
    const Box domain = h5::read_attr_box(ck, "domain", dim_);
    if (domain != cfg.geom0.domain)
      bad(fmt::format("level-0 domain {} differs from the deck's {} (domain.n_cell)",
                      str(domain), str(cfg.geom0.domain)));
    if (nlev > 1) {
      const std::vector<int> ratios = h5::read_attr_ints(ck, "ref_ratio");
      for (int l = 0; l + 1 < nlev; ++l)
        if (l >= int(ratios.size()) || ratios[l] != cfg.ref_ratio[l])
          bad(fmt::format(
              "refinement ratio between levels {} and {} is {}, amr.ref_ratio gives {}",
              l, l + 1, l < int(ratios.size()) ? ratios[l] : 0, cfg.ref_ratio[l]));
    }
    if (H5Aexists(ck, "initial_totals") > 0) {
      initial_totals_ = h5::read_attr_doubles(ck, "initial_totals");
      if (int(initial_totals_.size()) != ncomp_) bad("initial_totals has the wrong size");
    }

    const h5::Id box_t = h5::box_type(dim_);
    for (int l = 0; l < nlev; ++l) {
      const std::string name = "level_" + std::to_string(l);
      const h5::Id g = h5::open_group(file, name);
      const LevelGeom geom = cfg.geom(l);
      const Box pd = h5::read_attr_box(g, "prob_domain", dim_);
      if (pd != geom.domain)
        bad(fmt::format("{}: domain {} differs from the deck's {}", name, str(pd),
                        str(geom.domain)));
      LevelClock c;
      c.t_old = h5::read_attr_double(g, "t_old");
      c.t_new = h5::read_attr_double(g, "t_new");
      c.steps = h5::read_attr_int(g, "steps");
      c.last_regrid_step = h5::read_attr_int(g, "last_regrid_step");
      state_.clocks.push_back(c);

      const h5::Id boxes_d = h5::open_dataset(g, "boxes");
      const hsize_t np = h5::extent(boxes_d);
      std::vector<int> raw(size_t(2 * dim_) * np);
      if (np > 0) h5::read_all(boxes_d, box_t, raw.data());
      LevelLayout layout;
      for (hsize_t p = 0; p < np; ++p) {
        Box b(IntVect{0, 0, 0}, IntVect{0, 0, 0});
        for (int d = 0; d < dim_; ++d) {
          b.lo[d] = raw[2 * dim_ * p + d];
          b.hi[d] = raw[2 * dim_ * p + dim_ + d];
        }
        if (b.empty() || (b & geom.domain) != b)
          bad(fmt::format("{}: box {} is empty or outside the domain", name, str(b)));
        layout.boxes.push_back(b);
      }
      if (np == 0) bad(name + ": no boxes");
      const h5::Id owners_d = h5::open_dataset(g, "Processors");
      if (h5::extent(owners_d) != np) bad(name + ": Processors has the wrong size");
      layout.owner.resize(np);
      h5::read_all(owners_d, H5T_NATIVE_INT, layout.owner.data());
      const h5::Id off_d = h5::open_dataset(g, "data:offsets=0");
      if (h5::extent(off_d) != np + 1) bad(name + ": data:offsets=0 has the wrong size");
      std::vector<std::int64_t> off(np + 1);
      h5::read_all(off_d, H5T_NATIVE_INT64, off.data());
      const std::vector<long> cells = cell_offsets(layout.boxes);
      for (hsize_t p = 0; p <= np; ++p)
        if (off[p] != std::int64_t(cells[p]) * ncomp_)
          bad(name + ": data:offsets=0 does not match the boxes");
      if (h5::extent(h5::open_dataset(g, "data:datatype=0")) != hsize_t(off[np]))
        bad(name + ": data:datatype=0 has the wrong size");
      layouts_.push_back(std::move(layout));
      offsets_.push_back(std::move(off));
    }
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    // Reader failures name what is missing; say what that means.
    if (what.rfind("missing ", 0) == 0 || what.rfind("HDF5: ", 0) == 0 ||
        what.rfind("attribute ", 0) == 0)
      bad(what + " (not a complete patchwork checkpoint)");
    throw;
  }
}

void Checkpoint::restore(Hierarchy& h) const {
  const int ncomp = ncomp_;
  const int rank = h.comm().rank();
  const h5::Id file = h5::open_parallel(path_, h.comm().raw());
  const LevelReader read = [&](int l, const LevelLayout& layout, std::vector<Fab>& u) {
    const h5::Id g = h5::open_group(file, "level_" + std::to_string(l));
    const h5::Id data = h5::open_dataset(g, "data:datatype=0");
    const std::vector<std::int64_t>& off = offsets_[size_t(l)];
    std::vector<h5::Run> runs;
    for (size_t p = 0; p < layout.size(); ++p)
      if (layout.owner[p] == rank)
        runs.push_back({hsize_t(off[p]), hsize_t(off[p + 1] - off[p])});
    hsize_t total = 0;
    for (const h5::Run& r : runs)
      total += r.count;
    std::vector<double> values(total);
    h5::read_runs(data, H5T_NATIVE_DOUBLE, runs, values.data());
    // Each box in turn, component-major, i fastest (as write_chombo writes them).
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
}

}  // namespace pw
