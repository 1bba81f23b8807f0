//! The kernels' bindings against their WGSL (no GPU needed).

/// Every `@binding(n) var<…> name` of every kernel's WGSL agrees with the Rust side: binding 0 is the attack
/// tables (kernels that generate moves), 1 the parameters, 2, 3, … the buffers `Kernel::bindings` names in
/// dispatch order; and the pipeline index of each kernel is its place in `Kernel::ALL`.
#[test]
fn shader_bindings_match_rust() {
    use crate::gpu::kernels::Kernel;
    for (i, k) in Kernel::ALL.iter().enumerate() {
        assert_eq!(k.index(), i, "{k:?}");
        let src = k.wgsl();
        let mut found = Vec::new();
        for line in src.lines() {
            let Some(rest) = line.trim().strip_prefix("@group(0) @binding(") else {
                continue;
            };
            let (n, rest) = rest.split_once(')').unwrap();
            let n: usize = n.parse().unwrap();
            let rest = rest.trim().strip_prefix("var<").unwrap();
            let name = rest.split_once('>').unwrap().1;
            let name = name.trim().split(':').next().unwrap().trim().to_string();
            found.push((n, name));
        }
        found.sort();
        let mut want = vec![(1, "params".to_string())];
        if k.uses_tables() {
            want.insert(0, (0, "tables".to_string()));
        }
        for (j, name) in k.bindings().iter().enumerate() {
            want.push((2 + j, name.to_string()));
        }
        // common.wgsl declares bindings 0 and 1 for every kernel; kernels without tables leave 0 unused.
        if !k.uses_tables() {
            found.retain(|(n, _)| *n != 0);
        }
        assert_eq!(found, want, "kernel {}", k.name());
    }
}
