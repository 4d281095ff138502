// Command kubelet-env gives a container the environment and the args kubelet would give it:
// the Service variables of the pod's namespace (plus the master Services of "default"), then
// $(VAR) expanded in command and args, with kubelet's own code (Kubernetes v1.34).
//
// It reads one JSON object on stdin:
//
//	{"namespace": "kube-system", "enableServiceLinks": true,
//	 "services": [<v1.Service as the API server returns it>, ...],
//	 "container": <v1.Container>}
//
// and writes {"env": {NAME: value}, "command": [...], "args": [...]} on stdout.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	"k8s.io/kubernetes/pkg/kubelet/envvars"
)

type input struct {
	Namespace          string        `json:"namespace"`
	EnableServiceLinks *bool         `json:"enableServiceLinks"`
	Services           []*v1.Service `json:"services"`
	Container          v1.Container  `json:"container"`
}

type output struct {
	Env     map[string]string `json:"env"`
	Command []string          `json:"command"`
	Args    []string          `json:"args"`
}

// serviceEnv projects the Services onto a pod of namespace ns as kubelet's
// getServiceEnvVarMap does (pkg/kubelet/kubelet_pods.go): the master Services of
// "default" always, the namespace's own only with Service links on, none without an IP.
func serviceEnv(ns string, enableServiceLinks bool, services []*v1.Service) map[string]string {
	byName := map[string]*v1.Service{}
	for _, service := range services {
		if !v1helper.IsServiceIPSet(service) {
			continue
		}
		if service.Namespace == metav1.NamespaceDefault && service.Name == "kubernetes" {
			if _, seen := byName[service.Name]; !seen {
				byName[service.Name] = service
			}
		} else if service.Namespace == ns && enableServiceLinks {
			byName[service.Name] = service
		}
	}
	projected := make([]*v1.Service, 0, len(byName))
	for _, service := range byName {
		projected = append(projected, service)
	}
	env := map[string]string{}
	for _, variable := range envvars.FromServices(projected) {
		env[variable.Name] = variable.Value
	}
	return env
}

func run() error {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		return fmt.Errorf("reading the input: %w", err)
	}
	links := in.EnableServiceLinks == nil || *in.EnableServiceLinks // the API server's default
	env := serviceEnv(in.Namespace, links, in.Services)
	// The container's own variables win over the Service variables, as in kubelet.
	for _, variable := range in.Container.Env {
		env[variable.Name] = variable.Value
	}
	vars := make([]kubecontainer.EnvVar, 0, len(env))
	for name, value := range env {
		vars = append(vars, kubecontainer.EnvVar{Name: name, Value: value})
	}
	command, args := kubecontainer.ExpandContainerCommandAndArgs(&in.Container, vars)
	return json.NewEncoder(os.Stdout).Encode(output{Env: env, Command: command, Args: args})
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kubelet-env:", err)
		os.Exit(1)
	}
}
