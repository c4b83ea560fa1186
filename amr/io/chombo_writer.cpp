#include "amr/io/chombo_writer.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "amr/code_version.hpp"
#include "amr/io/checksum.hpp"
#include "amr/io/h5_util.hpp"
#include "amr/io/rank_errors.hpp"

namespace pw {

std::vector<long> cell_offsets(const BoxList& boxes) {
  std::vector<long> off(boxes.size() + 1, 0);
  for (size_t p = 0; p < boxes.size(); ++p)
    off[p + 1] = off[p] + boxes[p].num_cells();
  return off;
}

std::vector<unsigned char> ghost_types(const Box& box, const BoxList& covering) {
  const IntVect n = box.size();
  std::vector<unsigned char> g(box.num_cells(), 0);
  for (const Box& c : covering) {
    const Box b = box & c;
    if (b.empty()) continue;
    for (int k = b.lo[2]; k <= b.hi[2]; ++k)
      for (int j = b.lo[1]; j <= b.hi[1]; ++j)
        for (int i = b.lo[0]; i <= b.hi[0]; ++i)
          g[(long(k - box.lo[2]) * n[1] + (j - box.lo[1])) * n[0] + (i - box.lo[0])] =
              kCoveredCell;
  }
  return g;
}

double dump_cost(const AmrConfig& cfg, int level, const Box& box) {
  double substeps = 1;
  for (int l = 0; l < level; ++l)
    substeps *= cfg.ref_ratio[l];
  return double(box.num_cells()) * substeps;
}

namespace {

/// This rank's patches' interior values, each box in turn, component-major, i fastest;
/// copied from the device through host mirrors.
std::vector<double> owned_values(const Level& L, int rank, int ncomp) {
  std::vector<double> out;
  for (size_t p = 0; p < L.layout.size(); ++p) {
    if (!L.owns(int(p), rank)) continue;
    const Box& b = L.layout.boxes[p];
    const Fab& f = L.u_new[p];
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.data);
    const IntVect lo = f.box.lo;
    for (int c = 0; c < ncomp; ++c)
      for (int k = b.lo[2]; k <= b.hi[2]; ++k)
        for (int j = b.lo[1]; j <= b.hi[1]; ++j)
          for (int i = b.lo[0]; i <= b.hi[0]; ++i)
            out.push_back(host(c, k - lo[2], j - lo[1], i - lo[0]));
  }
  return out;
}

/// The first failure of a collective data write on this rank. The rank goes on with the
/// same sequence of HDF5 calls as the others (a full disk may fail the write on some
/// ranks only; one that stopped would leave the others waiting in the next collective),
/// and write_chombo reports it at the end.
class Deferred {
 public:
  template <class F>
  void operator()(F&& write) {
    try {
      write();
    } catch (const std::exception& e) {
      if (first_.empty()) first_ = e.what();
    }
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

/// A dataset every rank holds (`n` elements of `type` at `buf`): rank 0 writes it, the
/// others take part with nothing; every rank stores the same checksum beside it.
void write_global(hid_t loc, const std::string& name, hid_t type, hsize_t n,
                  const void* buf, int rank, Deferred& later) {
  const h5::Id d = h5::create_1d(loc, name, type, n);
  later([&] { h5::write_all_from(d, type, n, buf, rank); });
  h5::attr_checksum(d, h5::fnv1a(buf, n * H5Tget_size(type)));
}

/// The checksum of each patch's values (owned_values' bytes, patch by patch), known on
/// every rank: each owner hashes its own, a sum gathers them (the others add 0).
std::vector<std::uint64_t> patch_checksums(const Level& L,
                                           const std::vector<double>& values,
                                           const Comm& comm, int ncomp) {
  std::vector<std::uint64_t> sums(L.layout.size(), 0);
  size_t n = 0;
  for (size_t p = 0; p < L.layout.size(); ++p) {
    if (!L.owns(int(p), comm.rank())) continue;
    const size_t count = size_t(L.layout.boxes[p].num_cells()) * size_t(ncomp);
    sums[p] = h5::fnv1a(values.data() + n, count * sizeof(double));
    n += count;
  }
  MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()), MPI_UINT64_T, MPI_SUM,
                comm.raw());
  return sums;
}

void write_level(hid_t file, const Hierarchy& h, int l, std::vector<double>& rank_load,
                 Deferred& later) {
  const AmrConfig& cfg = h.config();
  const int dim = cfg.geom0.dim;
  const int rank = h.comm().rank();
  const int ncomp = h.ncomp();
  const Level& L = h.level(l);
  const BoxList& boxes = L.layout.boxes;
  const hsize_t np = boxes.size();

  h5::Id g = h5::create_group(file, "level_" + std::to_string(l));
  h5::attr_double(g, "dx", L.geom.dx[0]);
  h5::attr_double(g, "dt", L.t_new - L.t_old);
  h5::attr_double(g, "time", L.t_new);
  // The ratio to the next finer level; the finest level allowed has none (2, unused).
  h5::attr_int(g, "ref_ratio", l < cfg.max_level ? cfg.ref_ratio[l] : 2);
  h5::attr_box(g, "prob_domain", L.geom.domain, dim);
  for (int d = 0; d < dim; ++d)
    h5::attr_int(g, "is_periodic_" + std::to_string(d), L.geom.periodic[d] ? 1 : 0);
  // The time stepper's state of this level, for a restart. Only u_new is written: a dump
  // is taken at a coarse-step boundary, and advance_level() (amr/subcycle.cpp) advances
  // each level (the update goes into u_old's storage, then the two swap) before any finer
  // ghost fill reads its old state. The one read before that, the regrid at the start of
  // the next step, fills fine ghosts at the fine t_new, where fill_ghosts() uses the
  // coarse u_new alone (weight 1) unless rounding puts that time below the coarse t_new;
  // Hierarchy::restore() copies u_new into u_old for that case.
  h5::attr_double(g, "t_old", L.t_old);
  h5::attr_double(g, "t_new", L.t_new);
  h5::attr_int(g, "steps", L.steps);
  h5::attr_int(g, "last_regrid_step", L.last_regrid_step);
  {
    h5::Id da = h5::create_group(g, "data_attributes");
    h5::attr_int(da, "comps", ncomp);
    h5::attr_intvect(da, "ghost", IntVect{0, 0, 0}, dim);
    h5::attr_intvect(da, "outputGhost", IntVect{0, 0, 0}, dim);
    h5::attr_string(da, "objectType", "FArrayBox");
    h5::seal_attributes(da);
  }
  h5::seal_attributes(g);  // every attribute of the level is written above

  // Metadata every rank holds: rank 0 writes it, the others take part with nothing.
  std::vector<int> box_buf;
  std::vector<std::int64_t> ids(np);
  std::vector<double> cost(np);
  const std::vector<long> cells = cell_offsets(boxes);
  std::vector<std::int64_t> offsets(np + 1);
  long first_id = 0;
  for (int m = 0; m < l; ++m)
    first_id += long(h.level(m).layout.size());
  for (size_t p = 0; p < np; ++p) {
    h5::append_box(box_buf, boxes[p], dim);
    ids[p] = first_id + long(p);  // position in the dump's global patch order
    cost[p] = dump_cost(cfg, l, boxes[p]);
    rank_load[L.layout.owner[p]] += cost[p];
  }
  for (size_t p = 0; p <= np; ++p)
    offsets[p] = std::int64_t(cells[p]) * ncomp;
  const h5::Id box_t = h5::box_type(dim);
  write_global(g, "boxes", box_t, np, box_buf.data(), rank, later);
  write_global(g, "Processors", H5T_NATIVE_INT32, np, L.layout.owner.data(), rank, later);
  write_global(g, "patch_id", H5T_NATIVE_INT64, np, ids.data(), rank, later);
  write_global(g, "cost", H5T_NATIVE_DOUBLE, np, cost.data(), rank, later);
  // Measured kernel seconds per level step of each patch since the last regrid (0 where
  // not yet measured); each rank knows its own patches, the sum gives all.
  std::vector<double> measured = h.comm().sum(L.seconds);
  for (double& t : measured)
    t /= L.timed_steps > 0 ? double(L.timed_steps) : 1.0;
  write_global(g, "measured_time", H5T_NATIVE_DOUBLE, np, measured.data(), rank, later);
  write_global(g, "data:offsets=0", H5T_NATIVE_INT64, np + 1, offsets.data(), rank,
               later);

  // Field data and ghost types: each rank its own patches, at offsets from the global
  // patch order.
  std::vector<h5::Run> value_runs, cell_runs;
  std::vector<unsigned char> ghost;
  BoxList covering;
  if (l < h.finest_level())
    for (const Box& b : h.level(l + 1).layout.boxes)
      covering.push_back(coarsen(b, cfg.ratio(l)));
  for (size_t p = 0; p < np; ++p) {
    if (!L.owns(int(p), rank)) continue;
    const hsize_t n = boxes[p].num_cells();
    value_runs.push_back({hsize_t(offsets[p]), n * ncomp});
    cell_runs.push_back({hsize_t(cells[p]), n});
    const auto gt = ghost_types(boxes[p], covering);
    ghost.insert(ghost.end(), gt.begin(), gt.end());
  }
  const std::vector<double> values = owned_values(L, rank, ncomp);
  // The field data is checked patch by patch: one checksum per patch, in patch order.
  const std::vector<std::uint64_t> sums = patch_checksums(L, values, h.comm(), ncomp);
  write_global(g, "data:checksums", H5T_NATIVE_UINT64, np, sums.data(), rank, later);
  {
    h5::Id d = h5::create_1d(g, "data:datatype=0", H5T_NATIVE_DOUBLE, offsets[np]);
    later([&] { h5::write_runs(d, H5T_NATIVE_DOUBLE, value_runs, values.data()); });
  }
  // XDMF cannot parse ':' in a dataset path: the same data under a second name.
  H5Lcreate_hard(g, "data:datatype=0", g, "data_datatype_0", H5P_DEFAULT, H5P_DEFAULT);
  const h5::Id gt = h5::create_1d(g, "vtkGhostType", H5T_NATIVE_UINT8, cells[np]);
  later([&] { h5::write_runs(gt, H5T_NATIVE_UINT8, cell_runs, ghost.data()); });
}

}  // namespace

long dump_bytes(const Hierarchy& h, const DumpInfo& info) {
  const int dim = h.config().geom0.dim;
  long bytes = 65536 + long(info.deck.size());  // root attributes and groups
  for (int l = 0; l <= h.finest_level(); ++l) {
    const Level& L = h.level(l);
    const long np = long(L.layout.size());
    bytes += 16384;  // the level's group, attributes and dataset headers
    bytes += L.num_cells() * (8L * h.ncomp() + 1);  // data, vtkGhostType
    bytes += np * (8L * dim + 4 + 8 * 5);           // boxes .. data:checksums
  }
  return bytes + bytes / 8 + 65536;  // room to spare: a reserve too small is a hang
}

void write_chombo(const Hierarchy& h, const DumpInfo& info, const std::string& path) {
  const AmrConfig& cfg = h.config();
  const int dim = cfg.geom0.dim;
  const h5::Quiet quiet;
  Deferred later;
  h5::Id file = h5::open_parallel_rw(path, h.comm().raw());
  // Attributes and groups are metadata: every rank writes the same values.
  h5::attr_int(file, "num_levels", h.finest_level() + 1);
  h5::attr_int(file, "num_components", h.ncomp());
  for (int c = 0; c < h.ncomp(); ++c)
    h5::attr_string(file, "component_" + std::to_string(c), info.component_names[c]);
  h5::attr_double(file, "time", h.time());
  h5::attr_int(file, "iteration", info.step);
  h5::attr_string(file, "deck", info.deck);
  h5::attr_string(file, "code_version", code_version());
  if (info.units.set()) {  // none: dimensionless code units
    h5::attr_double(file, "length_unit", info.units.length);
    h5::attr_double(file, "time_unit", info.units.time);
    h5::attr_double(file, "mass_unit", info.units.mass);
  }
  {
    h5::Id b = h5::create_group(file, "balance");
    h5::attr_string(b, "method", info.balance_method);
    for (const auto& [name, value] : info.balance_metrics)
      h5::attr_double(b, name, value);
    h5::seal_attributes(b);
  }
  {
    h5::Id global = h5::create_group(file, "Chombo_global");
    h5::attr_int(global, "SpaceDim", dim);
    // yt places the domain at dx * prob_domain (origin 0); the true origin is here, and
    // the far corner (Chombo's dx is the x spacing only; cells need not be cubic).
    h5::attr_doubles(global, "prob_lo",
                     std::vector<double>(cfg.geom0.prob_lo, cfg.geom0.prob_lo + dim));
    std::vector<double> hi(size_t(dim), 0.0);
    for (int d = 0; d < dim; ++d)
      hi[size_t(d)] = cfg.geom0.prob_lo[d] + cfg.geom0.domain.size()[d] * cfg.geom0.dx[d];
    h5::attr_doubles(global, "prob_hi", hi);
    h5::seal_attributes(global);
  }
  {
    // What a restart needs beyond the levels, and the facts it checks the deck against.
    h5::Id c = h5::create_group(file, "checkpoint");
    h5::attr_int(c, "step", info.step);
    h5::attr_long(c, "cell_updates", h.cell_updates());
    h5::attr_int(c, "regrids", h.regrid_count());
    h5::attr_int(c, "balance_steps", info.balance_steps);
    h5::attr_int(c, "max_level", cfg.max_level);
    if (!cfg.ref_ratio.empty()) h5::attr_ints(c, "ref_ratio", cfg.ref_ratio);
    h5::attr_box(c, "domain", cfg.geom0.domain, dim);
    if (!info.initial_totals.empty())
      h5::attr_doubles(c, "initial_totals", info.initial_totals);
    if (!info.physics_counters.empty())
      h5::attr_longs(c, "physics_counters", info.physics_counters);
    h5::seal_attributes(c);
  }
  std::vector<double> rank_load(h.comm().size(), 0.0);
  for (int l = 0; l <= h.finest_level(); ++l)
    write_level(file, h, l, rank_load, later);
  const hsize_t nr = rank_load.size();
  write_global(file, "rank_load", H5T_NATIVE_DOUBLE, nr, rank_load.data(),
               h.comm().rank(), later);
  h5::seal_attributes(file);
  // Every rank learns whether a write failed anywhere: in a parallel run the file
  // cannot be closed then (see UnclosableFile).
  const std::string failed = first_error(h.comm(), later.first());
  if (!failed.empty() && h.comm().size() > 1) {
    file.abandon();
    throw UnclosableFile(failed);
  }
  // Closing writes what HDF5 still holds (rank 0, the metadata): it can fail too.
  const herr_t closed = file.close();
  if (!failed.empty()) throw std::runtime_error(failed);
  if (closed < 0)
    throw std::runtime_error("HDF5: closing the file failed" + h5::error_cause());
}

}  // namespace pw
