// A circuit whose witness code rejects some inputs: RangeCheck asserts
// x < 1000 (a run-time assert, no constraint), then the product of x and y
// must fit in 32 bits.  x = 5000 fails the assert;
// the error names RangeCheck.
pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";

template RangeCheck() {
    signal input x;
    signal output y;
    assert(x < 1000);
    y <== x;
}

template Guarded() {
    signal input x;
    signal input y;
    signal output p;
    component rc = RangeCheck();
    rc.x <== x;
    p <== rc.y * y;
    component bits = Num2Bits(32);
    bits.in <== p;
}

component main {public [y]} = Guarded();
