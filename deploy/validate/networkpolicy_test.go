package validate

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// An api pod (http 4000, metrics 9464) and its policy: the ingress controller on the HTTP port,
// Prometheus on the metrics port. RULES is replaced by each case's ingress rules.
const apiPod = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: api }
spec:
  selector: { matchLabels: { app.kubernetes.io/component: api } }
  template:
    metadata:
      labels: { app.kubernetes.io/component: api }
      annotations: { prometheus.io/port: "9464" }
    spec:
      containers:
        - name: c
          image: i
          ports:
            - { name: http, containerPort: 4000 }
            - { name: metrics, containerPort: 9464 }
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: { name: api }
spec:
  podSelector: { matchLabels: { app.kubernetes.io/component: api } }
  policyTypes: [Ingress, Egress]
  ingress:
RULES
  egress:
    - to: [{ namespaceSelector: {} }]
      ports: [{ port: 53, protocol: UDP }]
`

const (
	ingressOnHTTP    = "    - from: [{ namespaceSelector: { matchLabels: { ns: ingress } } }]\n      ports: [{ port: 4000 }]\n"
	prometheusOnMetr = "    - from: [{ namespaceSelector: { matchLabels: { ns: monitoring } } }]\n      ports: [{ port: 9464 }]\n"
)

func policyProblems(t *testing.T, rules string) []string {
	t.Helper()
	objects, err := Decode([]byte(strings.Replace(apiPod, "RULES\n", rules, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return checkNetworkPolicies(ofKind[*appsv1.Deployment](objects), ofKind[*networkingv1.NetworkPolicy](objects))
}

func TestNetworkPolicyKeepsTheMetricsPortToPrometheus(t *testing.T) {
	if problems := policyProblems(t, ingressOnHTTP+prometheusOnMetr); len(problems) != 0 {
		t.Fatalf("the chart's layout refused: %v", problems)
	}
	cases := map[string]struct{ rules, want string }{
		"ingress controller on both ports": {
			"    - from: [{ namespaceSelector: { matchLabels: { ns: ingress } } }]\n      ports: [{ port: 4000 }, { port: metrics }]\n" + prometheusOnMetr,
			"admits the metrics port and another port",
		},
		"ingress controller given the metrics port in a rule of its own": {
			ingressOnHTTP + prometheusOnMetr + "    - from: [{ namespaceSelector: { matchLabels: { ns: ingress } } }]\n      ports: [{ port: 9464 }]\n",
			"the peers of another port",
		},
		"a rule without ports": {
			ingressOnHTTP + "    - from: [{ namespaceSelector: { matchLabels: { ns: monitoring } } }]\n",
			"admits every port",
		},
		"no scrape": {ingressOnHTTP, "does not admit Prometheus"},
	}
	for name, c := range cases {
		problems := strings.Join(policyProblems(t, c.rules), "\n")
		if !strings.Contains(problems, c.want) {
			t.Errorf("%s: want a problem saying %q, got %q", name, c.want, problems)
		}
	}
}
