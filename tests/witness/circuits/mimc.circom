// MiMC in both circomlib forms: MiMC7 (x^7 rounds, 91 of them) of x under
// key k, and the MiMC sponge (Feistel, 220 rounds) absorbing two values.
// Long runs of multiplications by constants in the witness code.
pragma circom 2.0.0;

include "circomlib/circuits/mimc.circom";
include "circomlib/circuits/mimcsponge.circom";

template MimcPair() {
    signal input x;
    signal input k;
    signal input m[2];
    signal output h7;
    signal output hs;
    component m7 = MiMC7(91);
    m7.x_in <== x;
    m7.k <== k;
    h7 <== m7.out;
    component sp = MiMCSponge(2, 220, 1);
    sp.ins[0] <== m[0];
    sp.ins[1] <== m[1];
    sp.k <== k;
    hs <== sp.outs[0];
}

component main {public [k]} = MimcPair();
