//! Unit tests of the proof-kernel search.

use super::state::Column;
use super::*;

fn run(fen: &str) -> KernelResult {
    search(&Setup::from_fen(fen).unwrap(), NODE_BUDGET)
}

#[test]
fn column_edits() {
    let c = Column { len: 2, black: 2 }; // W B
    assert_eq!(c.insert(1, Color::White), Column { len: 3, black: 4 }); // W W B
    assert_eq!(c.insert(0, Color::Black), Column { len: 3, black: 5 }); // B W B
    assert_eq!(c.remove(0), Column { len: 1, black: 1 }); // B
    assert_eq!(c.set(0, Color::Black), Column { len: 2, black: 3 });
    assert_eq!(c.far_end(Color::White), None);
    assert_eq!(c.far_end(Color::Black), None);
    // W B W reduces to W B by one White promotion from the top; B W B to W B by one Black one.
    let t = Column { len: 2, black: 2 };
    assert_eq!(Column { len: 3, black: 2 }.reduces_to(t), Some((0, 1)));
    assert_eq!(Column { len: 3, black: 5 }.reduces_to(t), Some((1, 0)));
    assert_eq!(Column { len: 3, black: 4 }.reduces_to(t), None);
}

#[test]
fn start_and_one_capture() {
    assert_eq!(run(Setup::STARTPOS_FEN), KernelResult::Found(vec![]));
    // 1.e4 d5 2.exd5: one White pawn capture, e-file to d-file, above Black's d-pawn? No: it took it.
    let r = run("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2");
    let KernelResult::Found(k) = r else {
        panic!("{r:?}")
    };
    assert_eq!(k.len(), 1);
    assert_eq!(k[0].to_string(), "wPe0xPd1");
}
