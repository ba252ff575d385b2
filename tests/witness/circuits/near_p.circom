// Values at the top of the field: bit decompositions of 254 and 255 bits
// (a = the largest 254-bit value below p, b = p - 1 given as -1), a
// 252-bit LessThan of two neighbouring values near 2^252, and p - b.  The
// witness holds the high bits and the wrapped values, so a reduction or
// conversion error near p shows up here first.
pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

template NearP() {
    signal input a;
    signal input b;
    signal input c[2];
    signal output a_top;
    signal output b_low;
    signal output lt;
    signal output ge;
    signal output neg_b;
    component na = Num2Bits(254);
    na.in <== a;
    a_top <== na.out[253];
    component nb = Num2Bits(255);
    nb.in <== b;
    b_low <== nb.out[0];
    component less = LessThan(252);
    less.in[0] <== c[0];
    less.in[1] <== c[1];
    lt <== less.out;
    component gte = GreaterEqThan(252);
    gte.in[0] <== c[0];
    gte.in[1] <== c[1];
    ge <== gte.out;
    neg_b <== 0 - b;
}

component main {public [c]} = NearP();
