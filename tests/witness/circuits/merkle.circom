// Membership proof in a depth-10 binary Merkle tree hashed with
// Poseidon(2): at each level a direction bit (forced to 0 or 1) picks the
// order of the current node and its sibling.  The leaf is public, the root
// a public output.
pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/mux1.circom";

template MerkleProof(depth) {
    signal input leaf;
    signal input path[depth];
    signal input dir[depth];
    signal output root;
    component sel[depth];
    component h[depth];
    signal node[depth + 1];
    node[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        dir[i] * (dir[i] - 1) === 0;
        sel[i] = MultiMux1(2);
        sel[i].c[0][0] <== node[i];
        sel[i].c[0][1] <== path[i];
        sel[i].c[1][0] <== path[i];
        sel[i].c[1][1] <== node[i];
        sel[i].s <== dir[i];
        h[i] = Poseidon(2);
        h[i].inputs[0] <== sel[i].out[0];
        h[i].inputs[1] <== sel[i].out[1];
        node[i + 1] <== h[i].out;
    }
    root <== node[depth];
}

component main {public [leaf]} = MerkleProof(10);
