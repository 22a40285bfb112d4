package infer

// libfile.go: whether a library name names the ONNX Runtime already
// loaded. A name is compared as the file it names, not as a string: the
// same library spelled another way (dir/../dir/lib, a symlink, a relative
// path, a hard link, the bare soname) is the same runtime; another file is
// another runtime, which a process cannot have.

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

// tp_noload returns the loader's handle for name if name resolves to an
// object already loaded, else NULL; it never loads anything. A non-NULL
// handle holds a reference: dlclose it.
static void *tp_noload(const char *name) { return dlopen(name, RTLD_LAZY | RTLD_NOLOAD); }

static void tp_close(void *h) { dlclose(h); }

// tp_symbol_file returns the file name the loader recorded for the object
// that defines sym (looked up from handle), or NULL. The string is the
// loader's, valid while the object stays loaded.
static const char *tp_symbol_file(void *handle, const char *sym) {
	void *p = dlsym(handle, sym);
	Dl_info info;
	if (p == NULL || dladdr(p, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] == 0) {
		return NULL;
	}
	return info.dli_fname;
}
*/
import "C"

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileID is a file's identity: what makes two names one file.
type fileID struct{ dev, ino uint64 }

func statID(path string) (fileID, bool) {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

// loadedLib identifies the library Load loaded.
type loadedLib struct {
	// handle is the loader's handle for the object: its identity while it
	// is loaded (no reference is kept: the environment's own keeps it
	// loaded while any Load can compare against it).
	handle uintptr
	// file is the path of the file the loader mapped (for a bare soname,
	// the directory its search found it in), and id that file's identity
	// taken at load.
	file string
	id   fileID
	ok   bool // id is known
}

// identify finds what the loader loaded for name, just after a
// successful load of name. The file is the one that holds OrtGetApiBase
// (the entry point onnxruntime_go called), as dladdr names it: for a bare
// soname the loader searched for, that is the only way to know which file
// it found. It is stat'ed at once, under the environment's lock, so a
// relative name resolves against the same working directory the load
// did. Should the loader not say, a name with a slash is stat'ed itself.
func identify(name string) loadedLib {
	var l loadedLib
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if h := C.tp_noload(cname); h != nil {
		l.handle = uintptr(h)
		csym := C.CString("OrtGetApiBase")
		if f := C.tp_symbol_file(h, csym); f != nil {
			l.file = C.GoString(f)
		}
		C.free(unsafe.Pointer(csym))
		C.tp_close(h)
	}
	if l.file == "" && strings.Contains(name, "/") {
		l.file = name
	}
	if l.file != "" {
		l.id, l.ok = statID(l.file)
	}
	return l
}

// names reports whether name names the loaded library l (loaded from
// loadedName). The name it was loaded by is always the same library — a
// dlopen of it returns the loaded object. A name with a slash is a path:
// the file it reaches (symlinks followed) is compared with the loaded
// file by device and inode. A bare name is not a path — the dynamic
// loader resolves it by soname and search path, not against the working
// directory — so the loader is asked whether it resolves to an object
// already loaded (RTLD_NOLOAD: nothing is loaded), and which one, by
// handle.
func (l loadedLib) names(name, loadedName string) bool {
	if name == loadedName {
		return true
	}
	if strings.Contains(name, "/") {
		id, ok := statID(name)
		return ok && l.ok && id == l.id
	}
	if l.handle == 0 {
		return false
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	h := C.tp_noload(cname)
	if h == nil {
		return false
	}
	C.tp_close(h)
	return uintptr(h) == l.handle
}
