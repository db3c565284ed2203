package validate

import (
	"fmt"
	"reflect"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// privateRanges must stay out of reach of a worker's egress: a job's URL that resolves into the
// cluster (pods, services, nodes) or to the cloud metadata address must not get through.
var privateRanges = []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"}

// checkNetworkPolicies returns what is wrong with the NetworkPolicies of one render: every Deployment
// is selected by one that restricts both directions, its ingress opens only ports the container
// declares, each rule names its ports, the metrics port (which answers without credentials) is
// opened for every role and never to the peers of another port (the ingress controller's), and
// only the workers reach the internet, without the private ranges.
func checkNetworkPolicies(deployments []*appsv1.Deployment, policies []*networkingv1.NetworkPolicy) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for _, d := range deployments {
		pod := d.Spec.Template
		var policy *networkingv1.NetworkPolicy
		for _, p := range policies {
			if labels.SelectorFromSet(p.Spec.PodSelector.MatchLabels).Matches(labels.Set(pod.Labels)) {
				policy = p
			}
		}
		if policy == nil {
			fail("%s: no NetworkPolicy selects its pods", d.Name)
			continue
		}
		types := policy.Spec.PolicyTypes
		if !slices.Contains(types, networkingv1.PolicyTypeIngress) || !slices.Contains(types, networkingv1.PolicyTypeEgress) {
			fail("NetworkPolicy %s: must restrict Ingress and Egress, has %v", policy.Name, types)
		}
		c := pod.Spec.Containers[0]
		metrics := portNumber(c, pod.Annotations["prometheus.io/port"])
		var metricsPeers, otherPeers []networkingv1.NetworkPolicyPeer
		for _, rule := range policy.Spec.Ingress {
			if len(rule.From) == 0 {
				fail("NetworkPolicy %s: an ingress rule without peers admits every source", policy.Name)
			}
			if len(rule.Ports) == 0 {
				fail("NetworkPolicy %s: an ingress rule without ports admits every port, the metrics port included", policy.Name)
			}
			admitsMetrics, admitsOther := false, false
			for _, port := range rule.Ports {
				if port.Port == nil || !hasPort(c, port.Port.String()) {
					fail("NetworkPolicy %s: ingress port %v is not a port of the container", policy.Name, port.Port)
					continue
				}
				if portNumber(c, port.Port.String()) == metrics {
					admitsMetrics = true
				} else {
					admitsOther = true
				}
			}
			if admitsMetrics && admitsOther {
				fail("NetworkPolicy %s: one rule admits the metrics port and another port; only Prometheus may reach /metrics", policy.Name)
			}
			if admitsMetrics {
				metricsPeers = append(metricsPeers, rule.From...)
			} else if admitsOther {
				otherPeers = append(otherPeers, rule.From...)
			}
		}
		if metrics == 0 || len(metricsPeers) == 0 {
			fail("NetworkPolicy %s: does not admit Prometheus to the metrics port", policy.Name)
		}
		for _, peer := range metricsPeers {
			if slices.ContainsFunc(otherPeers, func(o networkingv1.NetworkPolicyPeer) bool { return reflect.DeepEqual(o, peer) }) {
				fail("NetworkPolicy %s: the peers of another port (the ingress controller's) reach the metrics port too", policy.Name)
			}
		}
		worker := pod.Labels["app.kubernetes.io/component"] == "worker"
		reachesInternet := false
		for _, rule := range policy.Spec.Egress {
			if len(rule.To) == 0 {
				fail("NetworkPolicy %s: an egress rule without peers reaches everything", policy.Name)
			}
			for _, peer := range rule.To {
				if peer.IPBlock == nil || peer.IPBlock.CIDR != "0.0.0.0/0" {
					continue
				}
				reachesInternet = true
				for _, r := range privateRanges {
					if !slices.Contains(peer.IPBlock.Except, r) {
						fail("NetworkPolicy %s: egress to 0.0.0.0/0 must except %s", policy.Name, r)
					}
				}
			}
		}
		if worker && !reachesInternet {
			fail("NetworkPolicy %s: the workers must reach the internet for HTTP targets", policy.Name)
		}
		if !worker && reachesInternet {
			fail("NetworkPolicy %s: only the workers reach the internet", policy.Name)
		}
	}
	return problems
}
