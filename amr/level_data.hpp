// LevelData: a field on one level (the state, a potential, a residual, face fluxes): the
// layout, one Fab per owned patch with any number of components and any ghost width, and
// its cached copy plans, with the verbs every field needs: same-level ghost exchange
// (periodic images included, in two phases so the caller can work while messages fly),
// coarse-to-fine ghost interpolation in space and time, average-down, and physical
// boundary conditions per component and face. As AMReX's MultiFab or Chombo's LevelData.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "amr/boundary.hpp"
#include "amr/box_set.hpp"
#include "amr/comm.hpp"
#include "amr/fab.hpp"
#include "amr/field3.hpp"
#include "amr/interpolate.hpp"
#include "amr/layout.hpp"
#include "amr/level_geom.hpp"
#include "amr/parallel_copy.hpp"

namespace pw {

class LevelData {
 public:
  LevelData() = default;
  /// A new field's values: 0, or left as the memory holds them, for a field that its
  /// writer fills wholly before anything reads it (a step's face fluxes, the storage a
  /// step writes its new state into): zeroing those took a pass over the level's memory
  /// at every regrid.
  enum class Values { zero, unset };
  /// Allocate a Fab on each box of `layout` that `my_rank` owns: the box grown by
  /// `ghost` (use 0 in unused directions), or with face_dir = d the faces normal to d of
  /// the box (face-centred data; no ghost verbs then), in x over the columns of the box
  /// grown by ghost[0] when that is not 0 (ghost[1] and ghost[2] must be): rows as long
  /// as those of cell data with that ghost width, so that one loop can run over a plane
  /// of both (team_plane_cells). Other patches stay empty. Every
  /// value is 0 (unless `values` is unset). The fabs are put in `storage` (from
  /// release_storage) where it fits (storage_fits: enough, and at most half more), else
  /// in a new allocation.
  LevelData(const std::string& label, const LevelLayout& layout, const LevelGeom& geom,
            int ncomp, const IntVect& ghost, int my_rank, int face_dir = -1,
            Kokkos::View<double*> storage = {}, Values values = Values::zero);
  /// A new field of the same shape (layout, geometry, ghost width, components unless
  /// given), sharing this one's plans.
  LevelData like(const std::string& label, int ncomp = -1,
                 Kokkos::View<double*> storage = {}, Values values = Values::zero) const;
  /// For tests: fields made with unset values get NaN in every value (from now on, in
  /// this process), so that a read of one before it is written shows in the answer.
  static void poison_unset_values(bool on);
  /// Whether unset values are poisoned (fluxes kept in an update's scratch are too).
  static bool unset_values_poisoned();
  /// Gives up this field's memory for a new field to reuse (a regrid's new level takes
  /// the old one's: no fresh pages to fault in, no cudaMalloc), leaving it empty. Empty
  /// where a copy of this LevelData still holds the memory; a Fab, Array4 or FabRef
  /// copied out of it is not seen (they do not own the memory, see operator[]). The
  /// memory keeps the label it was allocated with (Kokkos Tools show that label).
  Kokkos::View<double*> release_storage();
  /// Values this field's memory holds: at least what its fabs use.
  size_t capacity() const { return memory_.extent(0); }

  size_t size() const { return fabs_.size(); }
  /// The fabs view into this LevelData's one allocation (zeroed_fabs): a copy of one
  /// must not outlive every copy of the LevelData.
  Fab& operator[](size_t p) { return fabs_[p]; }
  const Fab& operator[](size_t p) const { return fabs_[p]; }
  auto begin() const { return fabs_.begin(); }
  auto end() const { return fabs_.end(); }
  std::vector<Fab>& fabs() { return fabs_; }
  const std::vector<Fab>& fabs() const { return fabs_; }
  const LevelLayout& layout() const { return layout_; }
  const LevelGeom& geom() const { return geom_; }
  const Box& box(size_t p) const { return layout_.boxes[p]; }
  int ncomp() const { return ncomp_; }
  const IntVect& ghost() const { return ghost_; }
  bool owns(size_t p) const { return layout_.owner[p] == rank_; }

  /// Fill the ghost cells that patches of this level cover (through periodic images
  /// too) from their owners. begin() posts and sends and does the on-rank copies; the
  /// caller may work on interiors until finish(). Cells no patch covers are left (but
  /// see set_coarse_fine_from_inside).
  /// cross: only the ghosts beside the faces, not the edges and corners (what a
  /// 5/7-point stencil reads: fewer cells and far fewer pieces to copy). parity 0 or 1:
  /// only the ghost cells with (i + j + k) % 2 == parity (what one colour of a red-black
  /// sweep reads); -1: all. which: all the copies, or only the messages (a launch then
  /// makes the on-rank copies and unpacks what came itself: copies_by_patch), or only
  /// the sends and receives of what the launch before packed (Copies::packed).
  using Copies = CopyPlan::Copies;
  void fill_boundary_begin(const Comm& comm, bool cross = false, int parity = -1,
                           Copies which = Copies::all);
  void fill_boundary_finish(const Comm& comm);
  void fill_boundary(const Comm& comm, bool cross = false, int parity = -1,
                     Copies which = Copies::all) {
    fill_boundary_begin(comm, cross, parity, which);
    fill_boundary_finish(comm);
  }
  /// From now on fill_boundary also sets the coarse-fine ghost cells beside exactly one
  /// face of their patch, in the first layer (not edges or corners), to w1 times the
  /// cell inside plus w2 times the next one in (the patches at least 2 cells wide when
  /// w2 is not 0), with its on-rank copies (in their launch, or in the caller's that
  /// makes them): a refined level's multigrid correction, small near the face. For this
  /// field and the like() copies that share its plans.
  void set_coarse_fine_from_inside(double w1, double w2 = 0.0);
  struct InsideRule {
    double w1 = 0.0, w2 = 0.0;
  };
  /// The rule set_coarse_fine_from_inside gave, if any.
  std::optional<InsideRule> coarse_fine_from_inside() const;
  /// The copies of fill_boundary(comm, cross) between patches this rank owns (all of
  /// them on a layout held whole by this rank), the coarse-fine rule's among them: for
  /// a kernel that makes them itself, applying their scale.
  const std::vector<CopyTag>& on_rank_copies(bool cross);
  /// The copies a launch makes after fill_boundary(comm, cross, parity,
  /// Copies::messages), on the device, grouped by destination patch: the on-rank ones
  /// and the cells received (for a launch with a team per patch that makes its patch's
  /// copies and then reads them). Only after that exchange, before the next one of the
  /// plan this field shares with its like() copies (the received cells wait in its
  /// buffer), and with the same parity. Also the cells this rank sends, by source patch,
  /// for a launch that packs them into the plan's send buffer after the last exchange's
  /// finish, for the next exchange, of Copies::packed and the parity it packed.
  const CopiesByPatch& copies_by_patch(bool cross);
  /// Whether fill_boundary(comm, cross) sends or receives anything on this rank (if
  /// not, its copies are all on_rank_copies).
  bool exchange_has_messages(bool cross);
  /// Ghost cells beyond the domain's non-periodic faces, by bcs[c] for component c.
  void fill_physical_boundary(const BcSet& bcs);
  /// Ghost cells inside the domain that no patch of this level covers, interpolated from
  /// the coarser level (ratio `ratio`) at weight a in time between crse_old (a = 0) and
  /// crse_new (a = 1): only the state(s) with a nonzero weight are read. Interpolation
  /// interp[c] for component c; the coarse data beyond the coarse domain's walls by
  /// crse_bcs. This level's components are crse_comp onwards of the coarse states (read
  /// where they are: a field of a state of more components needs no copy). Collective.
  void fill_from_coarse(const LevelData& crse_old, const LevelData& crse_new, double a,
                        const IntVect& ratio, const std::vector<Interp>& interp,
                        const BcSet& crse_bcs, const Comm& comm, int crse_comp = 0);
  /// The interiors of crse under this level's patches = the average of this level's
  /// cells (ratio `ratio`). Collective.
  void average_down_to(LevelData& crse, const IntVect& ratio, const Comm& comm);

  /// Ghost cells filled from other patches, on other ranks (the communication cut).
  long cells_received();
  /// Patches whose coarse-fine regions this rank has worked out (for tests): its own and
  /// those beside its coarse patches, not the whole level's.
  size_t cf_regions_found() const;

  // For kernels over all owned patches in one launch (box_set.hpp): items are patch
  // indices.
  struct PatchGroup {
    BoxSet interiors;          // items: patch indices
    std::vector<int> patches;  // the same patches, on the host
  };
  /// The FabRef of every patch (empty where not owned), on the device; rebuilt when a
  /// Fab was replaced.
  const StructArray<FabRef>& refs() const;
  /// The interiors of the owned patches.
  const BoxSet& interiors() const;
  /// The owned patches whose ghost cells this rank fills alone (on-rank copies and the
  /// coarse level; none beyond a non-periodic face), so that their update may run while
  /// the same-level exchange's messages fly (`true`), or the others (`false`).
  const PatchGroup& ghosts_on_rank(bool on_rank);
  /// The owned Fabs' boxes, ghosts included.
  const BoxSet& fab_boxes() const;
  /// The owned patches' ghost cells beyond the faces of the domain in `faces` (bit
  /// 2 d + side for face (d, side); none where d is periodic), each cell once (edges and
  /// corners beyond two of them with the first), items: patch indices. Kept for the
  /// last mask asked for.
  const BoxSet& ghosts_beyond_faces(unsigned faces);
  /// Every patch's box (interior), on the device, by patch index.
  const StructArray<Box>& patch_boxes() const;
  /// The owned patches' ghost cells filled from the coarser level (none on level 0).
  const BoxSet& coarse_fine_set();
  /// By patch: its run of coarse_fine_set()'s boxes (for a team per patch).
  const StructArray<BoxSet::Range>& coarse_fine_runs();

  /// Every cell (ghosts included) of every owned patch = v.
  void set_val(double v);
  /// Every cell (ghosts included) of every owned patch = src's, same shape.
  void copy_from(const LevelData& src);
  /// Component dc of the interiors of the owned patches = src's component sc (src: the
  /// same layout, any components and ghosts).
  void copy_component(int dc, const LevelData& src, int sc);

 private:
  struct Plans;
  Plans& plans();
  /// Patch p's ghost cells that no patch of this level covers (found once).
  const BoxList& cf_region(size_t p);
  /// cf_region(p) of the patches a fill from the coarse layout crse needs on this rank,
  /// empty for the others.
  std::vector<BoxList> cf_regions_for(const LevelLayout& crse, const LevelGeom& crse_geom,
                                      const IntVect& ratio);

  std::string label_;
  LevelLayout layout_;
  LevelGeom geom_;
  int ncomp_ = 0;
  IntVect ghost_;
  int rank_ = 0;
  int face_dir_ = -1;
  std::vector<Fab> fabs_;
  Kokkos::View<double*> memory_;  // every fab's data (zeroed_fabs)
  std::shared_ptr<Plans> plans_;
  /// refs() and the Fabs it was built from (data, box: a new Fab may reuse the address).
  struct RefCache {
    std::vector<std::pair<const double*, Box>> built_from;
    StructArray<FabRef> refs;
  };
  mutable RefCache ref_cache_;
  /// The BoxSets and device boxes (built on first use, shared with like()).
  const Plans& sets() const;
  /// Patch p's fab box as the layout gives it: grown by the ghosts, or its faces.
  Box fab_box(size_t p) const;
};

}  // namespace pw
