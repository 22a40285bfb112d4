package tensorpublish_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gst-tensorpin/gst-tensorpin/elements/tensorpublish/internal/brokertest"
)

// writeCerts writes into dir a CA (ca.pem) and a server certificate for
// 127.0.0.1 it signed (server.pem, server.key).
func writeCerts(t *testing.T, dir string) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write := func(name, typ string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	caKey, srvKey := key(), key()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tensorpublish test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srv := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	srvDER, err := x509.CreateCertificate(rand.Reader, srv, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	write("ca.pem", "CERTIFICATE", caDER)
	write("server.pem", "CERTIFICATE", srvDER)
	write("server.key", "EC PRIVATE KEY", keyDER)
}

// Over TLS with the broker's CA in tls-ca-file, the messages arrive;
// without it the broker's certificate is not trusted: a warning naming
// why, and nothing sent.
func TestTensorPublishMQTTTLS(t *testing.T) {
	certs := t.TempDir()
	writeCerts(t, certs)
	tlsPort := brokertest.FreePort(t)
	b := brokertest.New(t, brokertest.Options{Extra: fmt.Sprintf("listener %d 127.0.0.1\ncafile %s\ncertfile %s\nkeyfile %s\n",
		tlsPort, filepath.Join(certs, "ca.pem"), filepath.Join(certs, "server.pem"), filepath.Join(certs, "server.key"))})
	b.Start()
	sub := brokertest.Subscribe(t, b, "test/tls", "", 0) // on the plain listener
	addr := fmt.Sprintf("tls://127.0.0.1:%d", tlsPort)

	r := start(t, "mqtt-address="+addr+" topic=test/tls tls-ca-file="+filepath.Join(certs, "ca.pem"), false)
	defer r.stop()
	for i := range 12 {
		r.push(i)
	}
	s := r.finish()
	want := r.withObjects()
	msgs, err := sub.Wait(30*time.Second, atLeast(len(want)))
	if err != nil {
		t.Fatalf("%d of %d: %v", len(msgs), len(want), err)
	}
	checkLines(t, "tls", payloads(msgs), want, "")
	if s.Published != s.Messages || len(r.warnings) != 0 {
		t.Errorf("stats %+v, warnings %d", s, len(r.warnings))
	}

	untrusted := start(t, "mqtt-address="+addr+" topic=test/tls flush-timeout=0", false)
	defer untrusted.stop()
	untrusted.push(1)
	untrusted.waitWarning("certificate")
	if s := untrusted.finish(); s.Published != 0 {
		t.Errorf("published %d with an untrusted certificate", s.Published)
	}
}
