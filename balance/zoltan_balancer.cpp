#include "balance/zoltan_balancer.hpp"

#include <mpi.h>
#include <zoltan.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace pw {

namespace {

/// What the query functions see: the patches, in plan order (global id = index).
struct Objects {
  const std::vector<PatchMeta>* patches;
  int dim;
};

int num_obj(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return int(static_cast<const Objects*>(data)->patches->size());
}

void obj_list(void* data, int /*num_gid*/, int /*num_lid*/, ZOLTAN_ID_PTR gids,
              ZOLTAN_ID_PTR /*lids*/, int wdim, float* wgts, int* ierr) {
  const auto& patches = *static_cast<const Objects*>(data)->patches;
  for (size_t i = 0; i < patches.size(); ++i) {
    gids[i] = ZOLTAN_ID_TYPE(i);
    if (wdim > 0) wgts[i] = float(patches[i].cost);
  }
  *ierr = ZOLTAN_OK;
}

int num_geom(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<const Objects*>(data)->dim;
}

/// The centroid in level-0 index units: (lo + hi + 1) / 2 / refinement, so patches of
/// all levels share one frame.
void geom_multi(void* data, int /*num_gid*/, int /*num_lid*/, int num_obj,
                ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR /*lids*/, int num_dim, double* xyz,
                int* ierr) {
  const auto& patches = *static_cast<const Objects*>(data)->patches;
  for (int k = 0; k < num_obj; ++k) {
    const PatchMeta& p = patches[gids[k]];
    for (int d = 0; d < num_dim; ++d)
      xyz[k * num_dim + d] = 0.5 * (p.box.lo[d] + p.box.hi[d] + 1) / p.refinement;
  }
  *ierr = ZOLTAN_OK;
}

const char* lb_method(ZoltanMethod m) {
  switch (m) {
    case ZoltanMethod::rcb:
      return "RCB";
    case ZoltanMethod::rib:
      return "RIB";
    case ZoltanMethod::hsfc:
      return "HSFC";
  }
  return "RCB";
}

struct ZoltanDestroy {
  void operator()(Zoltan_Struct* zz) const { Zoltan_Destroy(&zz); }
};

void check(int rc, const char* what) {
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN)
    throw std::runtime_error(std::string("Zoltan: ") + what + " failed (code " +
                             std::to_string(rc) + ")");
}

}  // namespace

ZoltanBalancer::ZoltanBalancer(ZoltanMethod method, int dim, double imbalance_tol)
    : method_(method), dim_(std::clamp(dim, 1, 3)), imbalance_tol_(imbalance_tol) {}

Plan ZoltanBalancer::plan(const std::vector<PatchMeta>& patches,
                          const RankInfo& ranks) const {
  const int n = int(patches.size());
  const int p = ranks.nranks;
  std::vector<int> owner(n, 0);
  if (n > 0 && p > 1) {
    float version = 0;
    check(Zoltan_Initialize(0, nullptr, &version), "Zoltan_Initialize");
    // MPI_COMM_SELF: every rank partitions the whole list by itself, so no rank waits on
    // another and all get the same answer from the same input.
    std::unique_ptr<Zoltan_Struct, ZoltanDestroy> zz(Zoltan_Create(MPI_COMM_SELF));
    if (!zz) throw std::runtime_error("Zoltan: Zoltan_Create failed");
    // Fixed parameters, no state kept between calls (no reused cuts, no remapping of
    // parts to the current owners: keep_data_in_place does that for every balancer).
    const std::string nparts = std::to_string(p), tol = std::to_string(imbalance_tol_);
    const char* params[][2] = {{"DEBUG_LEVEL", "0"},
                               {"LB_METHOD", lb_method(method_)},
                               {"LB_APPROACH", "PARTITION"},
                               {"NUM_GID_ENTRIES", "1"},
                               {"NUM_LID_ENTRIES", "0"},
                               {"OBJ_WEIGHT_DIM", "1"},
                               {"RETURN_LISTS", "PARTS"},
                               {"NUM_GLOBAL_PARTS", nparts.c_str()},
                               {"IMBALANCE_TOL", tol.c_str()},
                               {"REMAP", "0"},
                               {"KEEP_CUTS", "0"},
                               {"RCB_REUSE", "0"}};
    for (const auto& [key, value] : params)
      check(Zoltan_Set_Param(zz.get(), key, value), key);

    Objects objects{&patches, dim_};
    Zoltan_Set_Num_Obj_Fn(zz.get(), num_obj, &objects);
    Zoltan_Set_Obj_List_Fn(zz.get(), obj_list, &objects);
    Zoltan_Set_Num_Geom_Fn(zz.get(), num_geom, &objects);
    Zoltan_Set_Geom_Multi_Fn(zz.get(), geom_multi, &objects);

    // Part sizes in proportion to speed, so that each rank's time is even.
    if (std::any_of(ranks.speed.begin(), ranks.speed.end(),
                    [&](double s) { return s != ranks.speed[0]; })) {
      std::vector<int> ids(p), wgt_idx(p, 0);
      std::vector<float> sizes(p);
      for (int r = 0; r < p; ++r) {
        ids[r] = r;
        sizes[r] = float(ranks.speed[r]);
      }
      check(Zoltan_LB_Set_Part_Sizes(zz.get(), 1, p, ids.data(), wgt_idx.data(),
                                     sizes.data()),
            "Zoltan_LB_Set_Part_Sizes");
    }

    int changes = 0, num_gid = 0, num_lid = 0, num_import = 0, num_export = 0;
    ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr;
    ZOLTAN_ID_PTR export_gids = nullptr, export_lids = nullptr;
    int *import_procs = nullptr, *import_parts = nullptr;
    int *export_procs = nullptr, *export_parts = nullptr;
    const int rc = Zoltan_LB_Partition(
        zz.get(), &changes, &num_gid, &num_lid, &num_import, &import_gids, &import_lids,
        &import_procs, &import_parts, &num_export, &export_gids, &export_lids,
        &export_procs, &export_parts);
    // With RETURN_LISTS = PARTS the export lists hold the part of every local object.
    std::fill(owner.begin(), owner.end(), -1);
    if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN)
      for (int k = 0; k < num_export; ++k)
        if (export_gids[k] < ZOLTAN_ID_TYPE(n)) owner[export_gids[k]] = export_parts[k];
    Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
    Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
    check(rc, "Zoltan_LB_Partition");
    for (int o : owner)
      if (o < 0 || o >= p)
        throw std::runtime_error(
            "Zoltan: Zoltan_LB_Partition left a patch without a part");
  }
  return whole_patches(patches, owner);
}

}  // namespace pw
