package infer

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// LibraryEnv names the environment variable Load reads when it is given no
// path.
const LibraryEnv = "ONNXRUNTIME_LIB"

// TelemetryEnv is ONNX Runtime's own switch for its telemetry. Load sets
// it to "1" while it creates the environment unless the process already
// has it set (to anything): a user who sets it decides.
const TelemetryEnv = "ORT_DISABLE_TELEMETRY"

// DefaultLibraries are the names Load asks the dynamic loader for, in
// order, when it is given no path and $ONNXRUNTIME_LIB is unset or empty.
var DefaultLibraries = []string{"libonnxruntime.so.1", "libonnxruntime.so"}

// env is the process's one ONNX Runtime environment: onnxruntime_go keeps
// one library handle and one OrtEnv per process, so every Environment
// handle and every Session shares it, and the last reference destroys it
// (and unloads the library).
var env struct {
	mu      sync.Mutex
	refs    int
	lib     string    // the path it was loaded from
	loaded  loadedLib // the file that is, for comparing other names with
	version string
}

// Environment is a reference on the process's ONNX Runtime environment.
// Load returns one; every Session holds its own, so the environment lives
// until the last Environment handle and the last Session are closed.
type Environment struct {
	mu     sync.Mutex
	closed bool
}

// Load loads ONNX Runtime's shared library and creates its environment, or
// takes another reference on the one already loaded. The library is lib;
// if lib is "", $ONNXRUNTIME_LIB; if that is unset or empty, the names in
// DefaultLibraries through the dynamic loader's search path. A failure
// wraps ErrRuntimeUnavailable and names each path tried with the loader's
// message. Asking for a library other than the one already loaded is
// ErrRuntimeUnavailable too: a process has one ONNX Runtime. "Other" is
// another file: the loaded library by another path (a symlink, a
// relative path, dir/../dir) or by its soname is the same one.
//
// Loading leaves nothing behind: ONNX Runtime 1.30's Linux build starts a
// telemetry client with the environment, which writes
// $HOME/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db},
// ${TMPDIR:-/tmp}/.ses and an empty ${TMPDIR:-/tmp}/mat-debug-PID.log. Load
// sets ORT_DISABLE_TELEMETRY=1 for the duration of the environment's
// creation (and restores the environment variable after), unless the
// process already has ORT_DISABLE_TELEMETRY set, in which case ONNX
// Runtime does what it says.
func Load(lib string) (*Environment, error) {
	if err := acquire(lib); err != nil {
		return nil, err
	}
	return &Environment{}, nil
}

// candidates returns the library paths Load tries for lib.
func candidates(lib string) []string {
	if lib != "" {
		return []string{lib}
	}
	if e := os.Getenv(LibraryEnv); e != "" {
		return []string{e}
	}
	return DefaultLibraries
}

// acquire takes a reference on the environment, loading it first if there
// is none.
func acquire(lib string) error {
	env.mu.Lock()
	defer env.mu.Unlock()
	tries := candidates(lib)
	if env.refs > 0 {
		// Any request names the loaded library, or asks for no library in
		// particular (lib == "" and the environment variable unset).
		if lib == "" && os.Getenv(LibraryEnv) == "" {
			env.refs++
			return nil
		}
		// A name is compared as the file it names (libfile.go): the same
		// library reached another way is the same runtime.
		for _, t := range tries {
			if env.loaded.names(t, env.lib) {
				env.refs++
				return nil
			}
		}
		from := env.lib
		if f := env.loaded.file; f != "" && f != env.lib {
			from += " (" + f + ")"
		}
		return fmt.Errorf("%w: %s: ONNX Runtime is already loaded in this process from %s (one runtime per process)",
			ErrRuntimeUnavailable, strings.Join(tries, ", "), from)
	}
	var errs []string
	for _, t := range tries {
		if err := initialize(t); err != nil {
			msg := fmt.Sprintf("%s: %v", t, err)
			if strings.Contains(msg, "OrtGetApiBase") {
				msg += " (a shared library, but not ONNX Runtime)"
			}
			errs = append(errs, msg)
			continue
		}
		env.refs = 1
		env.lib = t
		env.loaded = identify(t)
		env.version = ort.GetVersion()
		return nil
	}
	how := "the library"
	if lib == "" && os.Getenv(LibraryEnv) == "" {
		how = "the loader's search path (set " + LibraryEnv + " or pass a path)"
	}
	return fmt.Errorf("%w: tried %s: %s", ErrRuntimeUnavailable, how, strings.Join(errs, "; "))
}

// initialize loads path and creates the environment, with telemetry off
// unless the user set TelemetryEnv.
func initialize(path string) error {
	ort.SetSharedLibraryPath(path)
	_, userSet := os.LookupEnv(TelemetryEnv)
	if !userSet {
		// ONNX Runtime reads it when the environment is created (the
		// telemetry client starts then); later sessions do not.
		os.Setenv(TelemetryEnv, "1")
	}
	err := ort.InitializeEnvironment(ort.WithLogLevelWarning())
	if !userSet {
		os.Unsetenv(TelemetryEnv)
	}
	if err != nil {
		return err
	}
	if !userSet {
		// Also switch off the events themselves (a no-op when the client
		// never started, as above).
		if err := ort.DisableTelemetry(); err != nil {
			ort.DestroyEnvironment()
			return err
		}
	}
	return nil
}

// release drops a reference; the last one destroys the environment and
// unloads the library.
func release() error {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.refs <= 0 {
		return errors.New("infer: environment released more often than acquired")
	}
	env.refs--
	if env.refs > 0 {
		return nil
	}
	env.lib, env.loaded, env.version = "", loadedLib{}, ""
	if err := ort.DestroyEnvironment(); err != nil {
		return fmt.Errorf("destroying the ONNX Runtime environment: %w", err)
	}
	return nil
}

// Library returns the path the environment was loaded from ("" once the
// handle is closed).
func (e *Environment) Library() string {
	if e.isClosed() {
		return ""
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.lib
}

// Version returns ONNX Runtime's version string ("" once the handle is
// closed).
func (e *Environment) Version() string {
	if e.isClosed() {
		return ""
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.version
}

func (e *Environment) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// Close drops the handle's reference; the last reference in the process
// (handles and sessions) destroys the environment and unloads the library.
// A second Close of the same handle is a no-op.
func (e *Environment) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	return release()
}

// Loaded reports how many references (Environment handles and sessions)
// hold the process's environment: 0 when ONNX Runtime is not loaded.
func Loaded() int {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.refs
}
