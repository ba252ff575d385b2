/* Instantiates Fp2 for both curves (see fp2.h). */
#include "field/fp2.h"

#define E bls12_381_fp2
#define F bls12_381_fp
#define XI_C0 1
#include "field/fp2_template.h"
#undef E
#undef F
#undef XI_C0

#define E bn254_fp2
#define F bn254_fp
#define XI_C0 9
#include "field/fp2_template.h"
#undef E
#undef F
#undef XI_C0
