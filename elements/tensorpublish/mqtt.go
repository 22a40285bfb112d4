package tensorpublish

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/gst-tensorpin/gst-tensorpin/elements/internal/gstglue"
)

// The MQTT destination's fixed parameters.
const (
	// maxInflight bounds the messages handed to the client and not yet
	// acknowledged (QoS 1) or written (QoS 0).
	maxInflight = 64
	// minBackoff and maxBackoff bound the wait between two connection
	// attempts: doubled after each failure, reset by a connection.
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
	// connectTimeout bounds one connection attempt (the TCP or TLS
	// handshake and the CONNECT/CONNACK exchange).
	connectTimeout = 5 * time.Second
	// writeTimeout bounds one write to the broker.
	writeTimeout = 5 * time.Second
	// keepAlive is the MQTT keep-alive: a broker that vanished without
	// closing the connection is found out within about 1.5 times it.
	keepAlive = 10 * time.Second
	// disconnectQuiesce is how long a stop lets the client send what it
	// was writing and say DISCONNECT.
	disconnectQuiesce = 250 // ms
)

// mqttConfig is what a run's MQTT destination is made of, checked at
// start.
type mqttConfig struct {
	address    string // as the user gave it, for messages
	broker     string // scheme://host:port for the client
	hostPort   string
	tls        *tls.Config // nil: plain TCP
	topic      string
	qos        byte
	clientID   string
	username   string
	password   string
	failAtOnce bool // on-unreachable=error
}

// parseMQTT checks the settings of an MQTT destination.
func parseMQTT(s settings, elemName string) (mqttConfig, error) {
	c := mqttConfig{address: s.mqttAddress, topic: s.topic, qos: byte(s.qos), username: s.username, password: s.password,
		failAtOnce: s.onUnreachable == "error"}
	u, err := url.Parse(s.mqttAddress)
	if err != nil || u.Host == "" {
		return c, gstglue.Fail(gstglue.ResourceSettings,
			"tensorpublish: mqtt-address %q is not an address like tcp://host:1883 or tls://host:8883", s.mqttAddress)
	}
	port, secure := "1883", false
	switch strings.ToLower(u.Scheme) {
	case "tcp", "mqtt":
	case "ssl", "tls", "mqtts", "tcps":
		port, secure = "8883", true
	default:
		return c, gstglue.Fail(gstglue.ResourceSettings,
			"tensorpublish: mqtt-address %q: scheme %q is not tcp, mqtt, ssl, tls or mqtts", s.mqttAddress, u.Scheme)
	}
	if u.Port() != "" {
		port = u.Port()
	}
	c.hostPort = net.JoinHostPort(u.Hostname(), port)
	c.broker = "tcp://" + c.hostPort
	if secure {
		c.tls = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
		if s.tlsCAFile != "" {
			pem, err := os.ReadFile(s.tlsCAFile)
			if err != nil {
				return c, gstglue.Fail(gstglue.ResourceOpenRead, "tensorpublish: tls-ca-file: %v", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return c, gstglue.Fail(gstglue.ResourceSettings, "tensorpublish: tls-ca-file %q holds no PEM certificate", s.tlsCAFile)
			}
			c.tls.RootCAs = pool
		}
	} else if s.tlsCAFile != "" {
		return c, gstglue.Fail(gstglue.ResourceSettings,
			"tensorpublish: tls-ca-file is set but mqtt-address %q is not a TLS address (tls://, ssl:// or mqtts://)", s.mqttAddress)
	}
	if c.topic == "" || strings.ContainsAny(c.topic, "+#\x00") {
		return c, gstglue.Fail(gstglue.ResourceSettings,
			"tensorpublish: topic %q: a topic to publish to is not empty and has no wildcard (+ or #)", c.topic)
	}
	c.clientID = s.clientID
	if c.clientID == "" {
		host, _ := os.Hostname()
		c.clientID = fmt.Sprintf("tensorpublish-%s-%d-%s", host, os.Getpid(), elemName)
	}
	return c, nil
}

// mqttDest publishes each message to a broker from its own goroutine,
// which connects, reconnects with back-off, and keeps the messages in
// the queue while the broker cannot take them. The streaming thread only
// pushes into the queue.
type mqttDest struct {
	q    *queue
	cfg  mqttConfig
	self unsafe.Pointer

	client mqtt.Client
	// lost has a token when the client reported its connection lost.
	lost chan struct{}

	published  atomic.Uint64
	reconnects atomic.Uint64

	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// inflightMsg is a message handed to the client, not yet acknowledged.
type inflightMsg struct {
	tok mqtt.Token
	msg []byte
}

// errConnection ends a connection: the client lost it or could not
// publish on it.
var errConnection = errors.New("connection lost")

func startMQTT(self unsafe.Pointer, cfg mqttConfig, maxQueued int) *mqttDest {
	d := &mqttDest{q: newQueue(maxQueued), cfg: cfg, self: self, lost: make(chan struct{}, 1), done: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	o := mqtt.NewClientOptions().AddBroker(cfg.broker).SetClientID(cfg.clientID).
		SetUsername(cfg.username).SetPassword(cfg.password).
		SetCleanSession(true).SetAutoReconnect(false).SetConnectRetry(false).
		SetConnectTimeout(connectTimeout).SetWriteTimeout(writeTimeout).
		SetKeepAlive(keepAlive).SetPingTimeout(keepAlive / 2).
		SetConnectionLostHandler(func(mqtt.Client, error) {
			select {
			case d.lost <- struct{}{}:
			default:
			}
		}).
		// Dial ourselves: a stop cancels a connection attempt under way.
		SetCustomOpenConnectionFn(func(*url.URL, mqtt.ClientOptions) (net.Conn, error) { return d.dial() })
	d.client = mqtt.NewClient(o)
	go d.run()
	return d
}

// dial opens the connection to the broker, TLS or not, cancelled by the
// destination's stop.
func (d *mqttDest) dial() (net.Conn, error) {
	nd := &net.Dialer{Timeout: connectTimeout}
	if d.cfg.tls != nil {
		td := &tls.Dialer{NetDialer: nd, Config: d.cfg.tls}
		return td.DialContext(d.ctx, "tcp", d.cfg.hostPort)
	}
	return nd.DialContext(d.ctx, "tcp", d.cfg.hostPort)
}

func (d *mqttDest) queue() *queue { return d.q }

func (d *mqttDest) addStats(s *Stats) {
	s.Published += d.published.Load()
	s.Reconnects += d.reconnects.Load()
}

// run connects and publishes until the stop, reconnecting after a
// failure or a loss with a back-off. One warning per outage; an info
// when the broker is back.
func (d *mqttDest) run() {
	defer close(d.done)
	backoff := minBackoff
	everConnected := false
	var outageSince time.Time
	var outageDropped uint64
	inflight := make([]inflightMsg, 0, maxInflight)
	for d.ctx.Err() == nil {
		if err := d.connect(); err != nil {
			if d.ctx.Err() != nil {
				return
			}
			if !everConnected && outageSince.IsZero() && d.cfg.failAtOnce {
				gstglue.PostErrorRaw(gstglue.RawElementOf(d.self), resourceOpenWrite,
					fmt.Sprintf("tensorpublish: cannot connect to the MQTT broker %s: %v (on-unreachable=error)", d.cfg.address, err), "")
				return
			}
			if outageSince.IsZero() {
				outageSince, outageDropped = time.Now(), d.q.dropped.Load()
				post(d.self, kindWarning, resourceOpenWrite, fmt.Sprintf(
					"tensorpublish: cannot connect to the MQTT broker %s: %v; retrying, keeping the newest %d messages",
					d.cfg.address, err, len(d.q.ring)))
			}
			select {
			case <-time.After(backoff):
			case <-d.ctx.Done():
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		if !outageSince.IsZero() {
			d.reconnects.Add(1)
			post(d.self, kindInfo, resourceOpenWrite, fmt.Sprintf(
				"tensorpublish: connected to the MQTT broker %s after %v; %d messages dropped meanwhile",
				d.cfg.address, time.Since(outageSince).Round(time.Millisecond), d.q.dropped.Load()-outageDropped))
		}
		everConnected, outageSince, backoff = true, time.Time{}, minBackoff
		var err error
		inflight, err = d.publishLoop(inflight[:0])
		// What the broker did not acknowledge goes back to the queue's
		// head, to be sent again (QoS 1: at least once).
		inflight = d.settle(inflight, true)
		if d.ctx.Err() != nil {
			d.client.Disconnect(disconnectQuiesce)
			return
		}
		if d.client.IsConnectionOpen() {
			d.client.Disconnect(0)
		}
		outageSince, outageDropped = time.Now(), d.q.dropped.Load()
		post(d.self, kindWarning, gstglue.ResourceWrite, fmt.Sprintf(
			"tensorpublish: lost the MQTT broker %s: %v; reconnecting, keeping the newest %d messages",
			d.cfg.address, err, len(d.q.ring)))
	}
}

// connect makes one connection attempt, bounded by connectTimeout (a
// stop cancels its dial).
func (d *mqttDest) connect() error {
	// A loss reported for an earlier connection is not this one's.
	select {
	case <-d.lost:
	default:
	}
	tok := d.client.Connect()
	<-tok.Done()
	return tok.Error()
}

// publishLoop hands queued messages to the client, at most maxInflight
// unacknowledged, until the connection is lost or the stop. It returns
// the messages still in flight.
func (d *mqttDest) publishLoop(inflight []inflightMsg) ([]inflightMsg, error) {
	batch := make([][]byte, 0, maxInflight)
	for {
		inflight = d.settle(inflight, false)
		if len(inflight) > 0 && inflight[0].tok.Error() != nil {
			return inflight, fmt.Errorf("%w: %v", errConnection, inflight[0].tok.Error())
		}
		batch = d.q.pop(batch[:0], maxInflight-len(inflight))
		for _, msg := range batch {
			tok := d.client.Publish(d.cfg.topic, d.cfg.qos, false, msg[:len(msg)-1])
			inflight = append(inflight, inflightMsg{tok: tok, msg: msg})
		}
		if len(batch) > 0 {
			continue
		}
		var oldest <-chan struct{}
		if len(inflight) > 0 {
			oldest = inflight[0].tok.Done()
		}
		select {
		case <-d.q.wake:
			d.q.linger()
		case <-oldest:
		case <-d.lost:
			return inflight, errConnection
		case <-d.ctx.Done():
			return inflight, d.ctx.Err()
		}
	}
}

// settle counts the messages at the head of inflight whose token
// completed without error as published and gives their buffers back. With
// requeue, every other message goes back to the queue's head (a failed
// token, or one not completed: the connection is gone) and inflight is
// emptied. It stops at the first failed token otherwise.
func (d *mqttDest) settle(inflight []inflightMsg, requeue bool) []inflightMsg {
	i := 0
	for ; i < len(inflight); i++ {
		t := inflight[i].tok
		select {
		case <-t.Done():
		default:
			goto rest
		}
		if t.Error() != nil {
			break
		}
		d.published.Add(1)
		d.q.done(inflight[i].msg)
		inflight[i] = inflightMsg{}
	}
rest:
	rest := inflight[i:]
	if requeue {
		msgs := make([][]byte, len(rest))
		for j := range rest {
			msgs[j] = rest[j].msg
			rest[j] = inflightMsg{}
		}
		d.q.requeue(msgs)
		return inflight[:0]
	}
	n := copy(inflight, rest)
	for j := n; j < len(inflight); j++ {
		inflight[j] = inflightMsg{}
	}
	return inflight[:n]
}

// close stops the goroutine (a connection attempt under way is
// cancelled; a connected client gets disconnectQuiesce to finish), then
// drops what is still queued, counted.
func (d *mqttDest) close() {
	d.closeOnce.Do(func() {
		d.cancel()
		<-d.done
		d.q.discard()
	})
}
