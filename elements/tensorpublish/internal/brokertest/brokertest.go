// Package brokertest runs a real MQTT broker for tests — Debian's
// mosquitto, on a free loopback port, with its own configuration,
// persistence and log in a temporary directory — and real subscribers
// (paho). A machine without mosquitto fails the test, saying how to
// install it: make deps installs it (the Makefile's DEB_PACKAGES).
package brokertest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
)

// Broker is a mosquitto process the test owns. Stopped at the test's end,
// whatever happened.
type Broker struct {
	t    testing.TB
	bin  string
	dir  string
	conf string
	// Port is the loopback port it listens on; Addr its tcp:// address.
	Port int
	Addr string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Options shape a broker.
type Options struct {
	// Port to listen on (0: a free one).
	Port int
	// Extra lines for mosquitto.conf (a TLS listener's, say).
	Extra string
	// NoListener leaves out the default plain listener (with Extra
	// giving one).
	NoListener bool
}

// Binary returns mosquitto's path, or fails t with how to install it.
func Binary(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"mosquitto", "/usr/sbin/mosquitto"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Fatal("mosquitto is not installed: apt-get install mosquitto mosquitto-clients (make deps installs it: " +
		"DEB_PACKAGES in the Makefile)")
	return ""
}

// FreePort returns a loopback TCP port nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// New writes a broker's configuration (persistent sessions, no limit on
// the messages queued for a subscriber) without starting it.
func New(t testing.TB, o Options) *Broker {
	t.Helper()
	b := &Broker{t: t, bin: Binary(t), dir: t.TempDir(), Port: o.Port}
	if b.Port == 0 {
		b.Port = FreePort(t)
	}
	b.Addr = "tcp://127.0.0.1:" + strconv.Itoa(b.Port)
	b.conf = filepath.Join(b.dir, "mosquitto.conf")
	conf := fmt.Sprintf(`# brokertest: a test's own broker
per_listener_settings false
allow_anonymous true
persistence true
persistence_location %s/
autosave_interval 0
max_queued_messages 0
max_inflight_messages 100
log_dest file %s
log_type error
log_type warning
log_type notice
`, b.dir, filepath.Join(b.dir, "mosquitto.log"))
	if os.Geteuid() == 0 {
		// As root mosquitto would switch to its own user, who cannot
		// write to the test's directory.
		conf += "user root\n"
	}
	if !o.NoListener {
		conf += fmt.Sprintf("listener %d 127.0.0.1\n", b.Port)
	}
	conf += o.Extra
	if err := os.WriteFile(b.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return b
}

// Start runs a new broker (New then Start).
func Start(t testing.TB) *Broker {
	t.Helper()
	b := New(t, Options{})
	b.Start()
	return b
}

// Dir is the broker's directory (configuration, persistence, log).
func (b *Broker) Dir() string { return b.dir }

// Start starts mosquitto and waits until it accepts connections.
func (b *Broker) Start() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd != nil {
		b.t.Fatal("brokertest: already running")
	}
	cmd := exec.Command(b.bin, "-c", b.conf)
	// Its own output (as root it warns that it runs as root) goes to its
	// directory, beside its log.
	out, err := os.OpenFile(filepath.Join(b.dir, "mosquitto.out"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		b.t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		b.t.Fatalf("brokertest: %s: %v", b.bin, err)
	}
	b.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(b.Port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(b.dir, "mosquitto.log"))
			b.t.Fatalf("brokertest: mosquitto does not listen on %d after 10 s: %v\n%s", b.Port, err, log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop stops mosquitto cleanly (SIGTERM: it saves its persistent
// sessions) and waits for it; idempotent.
func (b *Broker) Stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	b.cmd = nil
}

// Running reports whether the broker runs.
func (b *Broker) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cmd != nil
}

// Message is one message a Subscriber received.
type Message struct {
	Payload []byte
	At      time.Time
}

// Subscriber is a paho client subscribed to a topic at QoS 1, keeping
// every message in arrival order.
type Subscriber struct {
	client mqtt.Client
	mu     sync.Mutex
	msgs   []Message
	notify chan struct{}
	// Delay is slept in the handler for each message (a slow
	// consumer); set before the messages come.
	Delay time.Duration
}

// Subscribe connects to b and subscribes to topic. With clientID set,
// the session is persistent (clean session off): what the broker queues
// for it while it is away, or while the broker restarts, reaches it when
// it is back. Disconnected at the test's end.
func Subscribe(t testing.TB, b *Broker, topic, clientID string, delay time.Duration) *Subscriber {
	t.Helper()
	s := &Subscriber{notify: make(chan struct{}, 1), Delay: delay}
	o := mqtt.NewClientOptions().AddBroker(b.Addr).SetOrderMatters(true).
		SetAutoReconnect(true).SetMaxReconnectInterval(100 * time.Millisecond).SetConnectRetry(true).
		SetConnectRetryInterval(100 * time.Millisecond)
	if clientID != "" {
		o.SetClientID(clientID).SetCleanSession(false)
	} else {
		o.SetClientID(fmt.Sprintf("brokertest-%d-%d", os.Getpid(), time.Now().UnixNano()))
	}
	handler := func(_ mqtt.Client, m mqtt.Message) {
		if s.Delay > 0 {
			time.Sleep(s.Delay)
		}
		s.mu.Lock()
		s.msgs = append(s.msgs, Message{Payload: append([]byte(nil), m.Payload()...), At: time.Now()})
		s.mu.Unlock()
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
	o.SetOnConnectHandler(func(c mqtt.Client) {
		// Subscribed again at each connection: a broker that restarted
		// without the session (not persistent) still gets it.
		c.Subscribe(topic, 1, handler)
	})
	s.client = mqtt.NewClient(o)
	tok := s.client.Connect()
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("brokertest: subscriber cannot connect to %s: %v", b.Addr, tok.Error())
	}
	// The subscription itself, before returning: messages published
	// after Subscribe returns reach it.
	st := s.client.Subscribe(topic, 1, handler)
	if !st.WaitTimeout(10*time.Second) || st.Error() != nil {
		t.Fatalf("brokertest: subscribe %q: %v", topic, st.Error())
	}
	t.Cleanup(s.Close)
	return s
}

// Close disconnects the subscriber (idempotent).
func (s *Subscriber) Close() {
	if s.client.IsConnected() {
		s.client.Disconnect(100)
	}
}

// Messages returns the messages received so far, in order.
func (s *Subscriber) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// ErrTimeout: Wait's time limit passed.
var ErrTimeout = errors.New("brokertest: timed out")

// Wait waits until cond holds for the messages received, or limit passes
// (a bound against a broken test, not a timed assertion).
func (s *Subscriber) Wait(limit time.Duration, cond func([]Message) bool) ([]Message, error) {
	deadline := time.Now().Add(limit)
	for {
		m := s.Messages()
		if cond(m) {
			return m, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return m, ErrTimeout
		}
		select {
		case <-s.notify:
		case <-time.After(min(left, 50*time.Millisecond)):
		}
	}
}
