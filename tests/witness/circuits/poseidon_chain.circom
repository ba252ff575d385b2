// A chain of Poseidon(2) hashes, h_0 = x, h_{i+1} = Poseidon(h_i, k_i): the
// common shape of hash-heavy circuits.  Under --prime bls12381 circomlib's
// round constants (made for BN254) are reduced mod the other prime: not a
// secure hash there, but a valid circuit with the same structure.
pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

template PoseidonChain(n) {
    signal input x;
    signal input k[n];
    signal output out;
    component h[n];
    for (var i = 0; i < n; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? x : h[i - 1].out;
        h[i].inputs[1] <== k[i];
    }
    out <== h[n - 1].out;
}

component main {public [x]} = PoseidonChain(8);
