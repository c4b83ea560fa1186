# Bad hydro settings are deck errors naming the file and line (or the argument), the key
# and what was expected (pw_bad_deck is defined in bad_decks.cmake).
set(PW_SOD ${PROJECT_SOURCE_DIR}/inputs/sod_x.toml)
set(PW_BLAST ${PROJECT_SOURCE_DIR}/inputs/blast_2d.toml)

pw_bad_deck(hydro_gamma "bad_hydro_gamma.toml:9: hydro.gamma: expected a ratio of specific heats > 1"
  ${PW_DECKS}/bad_hydro_gamma.toml)
pw_bad_deck(hydro_negative_density "shock_tube.left: expected a density > 0, got -1"
  ${PW_SOD} shock_tube.left=[-1.0,0.0,1.0])
pw_bad_deck(hydro_riemann "hydro.riemann: expected one of hllc, hlle, got 'roe'"
  ${PW_SOD} hydro.riemann=roe)
pw_bad_deck(hydro_reflect_on_periodic_axis "hydro.bc_lo: direction x: \"reflect\" on an axis that domain.periodic says is periodic"
  ${PW_BLAST} domain.periodic=[true,false] hydro.bc_lo=[\"reflect\",\"outflow\"])
pw_bad_deck(hydro_inflow_without_state "hydro.bc_lo: direction x: \"inflow\" needs a problem with an inflow state"
  ${PW_BLAST} hydro.bc_lo=[\"inflow\",\"outflow\"])
set(PW_SHOCKPOOL ${PROJECT_SOURCE_DIR}/inputs/shockpool_2d.toml)
pw_bad_deck(hydro_shock_normal "shockpool.normal: expected components >= 0 (the shock enters through lo faces)"
  ${PW_SHOCKPOOL} shockpool.normal=[1.0,-0.5])
pw_bad_deck(hydro_shock_axis_and_normal "shockpool.axis: give the shock's axis or its normal, not both"
  ${PW_SHOCKPOOL} shockpool.axis=x)
pw_bad_deck(hydro_inflow_away_from_normal "hydro.bc_lo: direction y: \"inflow\" needs a problem with an inflow state on this face"
  ${PW_SHOCKPOOL} shockpool.normal=[1.0,0.0])
set(PW_CLUMPS ${PROJECT_SOURCE_DIR}/inputs/clumps_3d.toml)
pw_bad_deck(hydro_gravity_walls "hydro.gravity: the box is not periodic along x: say what phi does at the walls with poisson.bc_lo and poisson.bc_hi"
  ${PW_BLAST} hydro.gravity=true)
pw_bad_deck(hydro_gravity_G "hydro.G: expected a number > 0"
  ${PW_CLUMPS} hydro.G=0)
pw_bad_deck(hydro_G_without_gravity "hydro.G: is a self-gravity setting, but hydro.gravity is false"
  ${PW_BLAST} hydro.G=3)
pw_bad_deck(hydro_jeans_cells "hydro.jeans_cells: expected a number of cells >= 0"
  ${PW_CLUMPS} hydro.jeans_cells=-1)
pw_bad_deck(hydro_negative_clump "clumps.amplitudes: expected density excesses >= 0"
  ${PW_CLUMPS} clumps.count=1 clumps.centers=[0.5,0.5,0.5] clumps.velocities=[0,0,0]
  clumps.widths=[0.1] clumps.amplitudes=[-2])
# Explicit clumps with a list missing: it said "expected 3 numbers, got 0", as if given.
pw_bad_deck(hydro_clumps_missing_list "clumps.velocities: missing: clumps.centers lists the clumps, so this key must too: 3 numbers (3 per clump, in one flat list)"
  ${PW_CLUMPS} clumps.count=1 clumps.centers=[0.5,0.5,0.5])

# Recorded answers of short runs of every hydro deck at 1 and 2 ranks (pw_fingerprint is
# defined in fingerprints.cmake): a change that moves any bit of a hydro run fails here.
pw_fingerprint(sod_x 12dd0fd7c0ef4138 ${PW_INPUTS}/sod_x.toml time.max_step=20)
pw_fingerprint(sod_y 000818e8cd4daaff ${PW_INPUTS}/sod_y.toml time.max_step=20)
pw_fingerprint(sod_z 1f32ca61ed2dff23 ${PW_INPUTS}/sod_z.toml time.max_step=10
  domain.n_cell=[16,16,128])
pw_fingerprint(blast_2d c513bc5a333b8ee5 ${PW_INPUTS}/blast_2d.toml time.max_step=10)
pw_fingerprint(blast_3d 2d1c72987d7d792e ${PW_INPUTS}/blast_3d.toml time.max_step=4
  domain.n_cell=[16,16,16] amr.blocking_factor=4 amr.max_grid_size=8 blast.radius=0.08)
pw_fingerprint(shockpool_2d 65db7a0151803c3f ${PW_INPUTS}/shockpool_2d.toml
  time.max_step=10)
pw_fingerprint(shockpool_3d d92724f54ea54c65 ${PW_INPUTS}/shockpool_3d.toml
  time.max_step=4 domain.n_cell=[32,16,16])
# (Self-gravity re-recorded when a refined level's coarser multigrid grids put the error's
# zero at its ghost centres, not at the coarse-fine face.)
pw_fingerprint(clumps_3d c78384690bfec2f6 ${PW_INPUTS}/clumps_3d.toml time.max_step=2
  domain.n_cell=[16,16,16] amr.blocking_factor=8 amr.max_grid_size=16 amr.max_level=2)
# Self-gravity where the balancer splits patches at 2 ranks and none at 1 (before the
# refined levels' solve stopped depending on the cut: fe86d261... at 1 rank, 559bd521...
# at 2).
pw_fingerprint(clumps_3d_split fb196ff892cc3766 ${PW_INPUTS}/clumps_3d.toml
  time.max_step=6 amr.max_grid_size=32 balance.method=chop_pack)
# A blast or a shock outside the domain was accepted, and the run showed nothing of it.
# A ball that can fall between level 0's initial-data samples: its energy was lost.
pw_bad_deck(hydro_blast_radius "blast.radius: expected at least 0.002763, the diagonal of the 4^2 samples of a level-0 cell's initial data (a smaller ball can fall between them), got 0.001"
  ${PW_BLAST} blast.radius=0.001)
# A ball beyond the domain: 1e300 overflowed the count of its samples, and the run ended
# with no energy and 4096 floored cells.
pw_bad_deck(hydro_blast_radius_huge "blast.radius: expected at most the domain's diagonal, 1.41421, got 1e+300"
  ${PW_BLAST} blast.radius=1e300)
# A floor above the gas changed the problem from the first step (sod_x with a density
# floor of 0.5: 2,304 floored cells, its mass +33%); found once the initial data is in.
pw_bad_run(hydro_density_floor_above_gas "hydro.density_floor: 0.5 is above the initial gas's least density, 0.125 (level 0): the floor would change the problem from the first step" 2
  ${PW_SOD} hydro.density_floor=0.5)
pw_bad_run(hydro_pressure_floor_above_gas "hydro.pressure_floor: 0.2 is above the initial gas's least pressure, 0.1 (level 0)" 2
  ${PW_SOD} hydro.pressure_floor=0.2)
# A floor set to the gas's own value (round-off below it in the initial data) is not
# above it.
add_test(NAME hydro_floor_equal_to_the_gas
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/expect_output.sh "^fingerprint: [0-9a-f]{16}$"
          -- $<TARGET_FILE:patchwork> ${PW_BLAST} blast.pressure=7e-10
          hydro.pressure_floor=7e-10 time.max_step=1 output.write=false)
set_tests_properties(hydro_floor_equal_to_the_gas PROPERTIES ENVIRONMENT "${PW_TEST_ENV}"
  TIMEOUT 60)
# A wave whose trough has no pressure: the floor check blamed the default floor.
pw_bad_deck(hydro_jeans_amplitude "jeans.amplitude: expected an amplitude below 1/gamma = 0.714286 (the pressure at the trough, p0 (1 - gamma A), must stay positive), got 0.8"
  ${PW_BLAST} hydro.problem=jeans jeans.amplitude=0.8)
pw_bad_deck(hydro_sound_wave_amplitude "sound_wave.amplitude: expected an amplitude below 1/gamma = 0.714286"
  ${PW_BLAST} hydro.problem=sound_wave sound_wave.amplitude=2)
pw_bad_deck(hydro_blast_outside "blast.center: expected a point of the domain: coordinate 0 in [0, 1], got 5"
  ${PW_BLAST} "blast.center=[5.0,0.5]")
pw_bad_deck(hydro_shock_outside "shock_tube.position: expected a position inside the domain along axis 0, in (0, 1), got 1.5"
  ${PW_SOD} shock_tube.position=1.5)
