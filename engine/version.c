/*
 * cuzk_version(): the library's version, "MAJOR.MINOR.PATCH".
 *
 * The number has one home, project(cuzk VERSION ...) in CMakeLists.txt,
 * which writes it into the build tree's generated/cuzk_version_cmake.h; the
 * shared library's SONAME (libcuzk.so.MAJOR) and cuzk.pc come from the same
 * place, so a program can check at run time that the library it loaded is
 * the one it was built against (pkg-config --modversion cuzk).
 *
 * The definition is marked for export itself: the function is exported by
 * libcuzk.so whether or not its declaration in include/cuzk.h carries the
 * header's export mark.  It must not do anything but return a constant.
 */
#include "cuzk.h"
#include "cuzk_version_cmake.h"

__attribute__((visibility("default"))) const char *cuzk_version(void) {
    return CUZK_VERSION_STRING;
}
