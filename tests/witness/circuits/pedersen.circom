// circomlib's Pedersen hash of a 250-bit message (two segments of fixed-base
// Baby Jubjub windows, then a point addition), the message given as a field
// element and split with Num2Bits.  The heaviest template here: thousands
// of constraints with field inversions in the witness code.  The base
// points are Baby Jubjub's (a BN254 curve); under --prime bls12381 the
// same formulas run on constants reduced mod the other prime, which is no
// curve hash but still a consistent circuit.
pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/pedersen.circom";

template PedersenMsg(n) {
    signal input msg;
    signal output hash[2];
    component bits = Num2Bits(n);
    bits.in <== msg;
    component ped = Pedersen(n);
    for (var i = 0; i < n; i++)
        ped.in[i] <== bits.out[i];
    hash[0] <== ped.out[0];
    hash[1] <== ped.out[1];
}

component main = PedersenMsg(250);
