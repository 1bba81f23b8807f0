//! Plans as values: host levels, units of work, counting mode, a level's slices (no GPU needed).

use super::settings;
use crate::cpw::{KIWIPETE, POSITIONS};
use crate::position::Setup;

#[test]
fn plans_are_values_that_print_and_cut_units() {
    use crate::gpu::planner::{plan, plan_slices, Counting, Settings, Slice, PROGRESS_UNITS};
    use crate::gpu::tables::HostTable;
    // No GPU here: a plan is made on the host. Level sizes are perft counts from the CPW pages
    // (`crate::cpw`): 20 and 400 for the start position, 48 for Kiwipete.
    let s = settings(true, true, 64 << 20);
    let start = [Setup::startpos()];
    let mut host = HostTable::new(1 << 10);
    let p = plan(&start, 5, 0, &s, 0, PROGRESS_UNITS, &mut host).unwrap();
    let cpw = POSITIONS[0].nodes_by_depth;
    assert_eq!(p.level_sizes(), [1, cpw[0] as usize, cpw[1] as usize]);
    assert_eq!((p.host_plies(), p.remaining(), p.units()), (2, 3, 31));
    assert_eq!(p.counting(), Counting::PerPosition);
    assert_eq!(
        p.to_string(),
        "depth 5: host levels 1, 20, 400; 400 positions at remaining 3 on the GPU in 31 units of up to 13, \
         counted per position"
    );
    // A blocking count: no host level below depth 12, one unit.
    let p = plan(&start, 5, 0, &s, 0, 1, &mut host).unwrap();
    assert_eq!((p.level_sizes(), p.units()), (vec![1], 1));
    // Kiwipete: 48 positions after one ply are enough for 32 units of 2 (24 of them).
    let kiwi = [Setup::from_fen(KIWIPETE.fen).unwrap()];
    let p = plan(&kiwi, 4, 0, &s, 0, PROGRESS_UNITS, &mut host).unwrap();
    assert_eq!(p.level_sizes(), [1, KIWIPETE.nodes_by_depth[0] as usize]);
    assert_eq!((p.remaining(), p.units()), (3, 24));
    // Merging and tables off, one root: one total.
    let plain = Settings {
        merge: false,
        cache: false,
        ..s
    };
    assert_eq!(
        plan(&start, 5, 0, &plain, 0, 1, &mut host)
            .unwrap()
            .counting(),
        Counting::Total
    );
    // Slices: consecutive, each within the room, the children's bases adding up.
    let counts = [3, 4, 5, 1, 6];
    assert_eq!(
        plan_slices(&counts, 8).unwrap(),
        [
            Slice {
                first: 0,
                end: 2,
                base: 0,
                children: 7
            },
            Slice {
                first: 2,
                end: 4,
                base: 7,
                children: 6
            },
            Slice {
                first: 4,
                end: 5,
                base: 13,
                children: 6
            },
        ]
    );
    assert!(plan_slices(&counts, 5).is_err());
}
