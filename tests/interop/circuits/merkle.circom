// Merkle path check with Poseidon(2) and a selector mux per level: the
// usual membership circuit of identity and voting systems.  The leaf is a
// public input, the root a public output; path and direction bits private.
pragma circom 2.0.0;

include "../node_modules/circomlib/circuits/poseidon.circom";
include "../node_modules/circomlib/circuits/mux1.circom";

template MerklePath(depth) {
    signal input leaf;
    signal input siblings[depth];
    signal input bits[depth];
    signal output root;
    component mux[depth];
    component hash[depth];
    signal cur[depth + 1];
    cur[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        bits[i] * (1 - bits[i]) === 0;
        mux[i] = MultiMux1(2);
        mux[i].c[0][0] <== cur[i];
        mux[i].c[0][1] <== siblings[i];
        mux[i].c[1][0] <== siblings[i];
        mux[i].c[1][1] <== cur[i];
        mux[i].s <== bits[i];
        hash[i] = Poseidon(2);
        hash[i].inputs[0] <== mux[i].out[0];
        hash[i].inputs[1] <== mux[i].out[1];
        cur[i + 1] <== hash[i].out;
    }
    root <== cur[depth];
}

component main {public [leaf]} = MerklePath(2);
