// Command bridge-marker is stackops' stand-in for kubevirt's bridge-marker (whose module the Go
// module proxy here refuses). Its contract, as cluster-network-addons-operator deploys it: every
// Linux bridge of the node it runs on (hostNetwork) is published as the node resource
// bridge.network.kubevirt.io/<bridge> (capacity and allocatable 1k), resources of bridges that
// are gone are removed, and /healthz on :8081 answers once the node has been patched.
//
// Standard library only, so it builds without any module download.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

const (
	prefix  = "bridge.network.kubevirt.io/"
	saDir   = "/var/run/secrets/kubernetes.io/serviceaccount"
	perNode = "1k"
)

type apiClient struct {
	base  string
	token string
	http  *http.Client
}

func newClient() (*apiClient, error) {
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (run in a pod)")
	}
	token, err := os.ReadFile(saDir + "/token")
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s/ca.crt holds no certificate", saDir)
	}
	return &apiClient{
		base:  "https://" + net.JoinHostPort(host, port),
		token: strings.TrimSpace(string(token)),
		http: &http.Client{
			Timeout:   15 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		},
	}, nil
}

func (c *apiClient) do(method, path, contentType string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(out.String()))
	}
	return out.Bytes(), nil
}

// bridges lists the node's Linux bridges: links with a bridge/ folder in sysfs.
func bridges() ([]string, error) {
	entries, err := os.ReadDir("/sys/class/net")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat("/sys/class/net/" + e.Name() + "/bridge"); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// sync patches the node's status so that its bridge resources are exactly the node's bridges.
func sync(c *apiClient, node string) error {
	found, err := bridges()
	if err != nil {
		return err
	}
	raw, err := c.do(http.MethodGet, "/api/v1/nodes/"+node, "", nil)
	if err != nil {
		return err
	}
	var current struct {
		Status struct {
			Capacity map[string]string `json:"capacity"`
		} `json:"status"`
	}
	if err := json.Unmarshal(raw, &current); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, b := range found {
		want[prefix+b] = true
	}
	change := map[string]any{}
	for name := range current.Status.Capacity {
		if strings.HasPrefix(name, prefix) && !want[name] {
			change[name] = nil
		}
	}
	for name := range want {
		if current.Status.Capacity[name] != perNode {
			change[name] = perNode
		}
	}
	if len(change) == 0 {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"capacity": change, "allocatable": change}})
	if _, err := c.do(http.MethodPatch, "/api/v1/nodes/"+node+"/status", "application/merge-patch+json", patch); err != nil {
		return err
	}
	log.Printf("node %s: bridges %v", node, found)
	return nil
}

func main() {
	node := flag.String("node-name", "", "the node this pod runs on")
	interval := flag.Duration("update-interval", 60*time.Second, "how often the node's bridges are read again")
	flag.Parse()
	if *node == "" {
		log.Fatal("-node-name is required")
	}
	client, err := newClient()
	if err != nil {
		log.Fatal(err)
	}
	var healthy atomic.Bool
	http.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if !healthy.Load() {
			http.Error(w, "node not marked yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	go func() { log.Fatal(http.ListenAndServe(":8081", nil)) }()
	for {
		if err := sync(client, *node); err != nil {
			log.Printf("marking node %s: %v", *node, err)
		} else {
			healthy.Store(true)
		}
		time.Sleep(*interval)
	}
}
