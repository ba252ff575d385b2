/* Instantiates the Groth16 prover and verifier for both curves (groth16.h). */
#include "groth16/prover/groth16.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "field/field_inline.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "pairing/pairing.h"

#define P bls12_381
#define P_FR_S BLS12_381_FR_TWO_ADICITY
#include "groth16/prover/groth16_template.h"
#undef P
#undef P_FR_S

#define P bn254
#define P_FR_S BN254_FR_TWO_ADICITY
#include "groth16/prover/groth16_template.h"
#undef P
#undef P_FR_S
