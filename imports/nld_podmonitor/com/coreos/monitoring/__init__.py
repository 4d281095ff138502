from __future__ import annotations

from pkgutil import extend_path
__path__ = extend_path(__path__, __name__)

import abc
import builtins
import datetime
import enum
import typing

import jsii
import publication
import typing_extensions

from jsii._type_checking import cached_type_hints, check_type


from ._jsii import *

class _LazyImport:
    def __init__(self, module_name: str) -> None:
        self._module_name = module_name
        self._module: typing.Any = None
    def __getattr__(self, name: str) -> typing.Any:
        if self._module is None:
            import importlib
            self._module = importlib.import_module(self._module_name)
        return getattr(self._module, name)

if typing.TYPE_CHECKING:

    import cdk8s as _cdk8s_d3d9af27
    import constructs as _constructs_77d1e7e8
else:

    _cdk8s_d3d9af27 = _LazyImport("cdk8s")
    _constructs_77d1e7e8 = _LazyImport("constructs")


class PodMonitor(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitor",
):
    '''The ``PodMonitor`` custom resource definition (CRD) defines how ``Prometheus`` and ``PrometheusAgent`` can scrape metrics from a group of pods.

    Among other things, it allows to specify:
    The pods to scrape via label selectors.
    The container ports to scrape.
    Authentication credentials to use.
    Target and metric relabeling.

    ``Prometheus`` and ``PrometheusAgent`` objects select ``PodMonitor`` objects using label and namespace selectors.

    :schema: PodMonitor
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["PodMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "PodMonitor" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: spec defines the specification of desired Pod selection for target discovery by Prometheus.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__06ac9addec6d56e24ca86572c4d8e5adb1b4e90b891311d0e9756c34058e2210)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = PodMonitorProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["PodMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "PodMonitor".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: spec defines the specification of desired Pod selection for target discovery by Prometheus.
        :param metadata: 
        '''
        props = PodMonitorProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "PodMonitor".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class PodMonitorProps:
    def __init__(
        self,
        *,
        spec: typing.Union["PodMonitorSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''The ``PodMonitor`` custom resource definition (CRD) defines how ``Prometheus`` and ``PrometheusAgent`` can scrape metrics from a group of pods.

        Among other things, it allows to specify:

        - The pods to scrape via label selectors.
        - The container ports to scrape.
        - Authentication credentials to use.
        - Target and metric relabeling.

        ``Prometheus`` and ``PrometheusAgent`` objects select ``PodMonitor`` objects using label and namespace selectors.

        :param spec: spec defines the specification of desired Pod selection for target discovery by Prometheus.
        :param metadata: 

        :schema: PodMonitor
        '''
        if isinstance(spec, dict):
            spec = PodMonitorSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e7def5625bf649e51498d165a8b7f56ee24c440dc8dabcb9b80060615c6e9c0c)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "PodMonitorSpec":
        '''spec defines the specification of desired Pod selection for target discovery by Prometheus.

        :schema: PodMonitor#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("PodMonitorSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: PodMonitor#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpec",
    jsii_struct_bases=[],
    name_mapping={
        "selector": "selector",
        "attach_metadata": "attachMetadata",
        "body_size_limit": "bodySizeLimit",
        "convert_classic_histograms_to_nhcb": "convertClassicHistogramsToNhcb",
        "fallback_scrape_protocol": "fallbackScrapeProtocol",
        "job_label": "jobLabel",
        "keep_dropped_targets": "keepDroppedTargets",
        "label_limit": "labelLimit",
        "label_name_length_limit": "labelNameLengthLimit",
        "label_value_length_limit": "labelValueLengthLimit",
        "namespace_selector": "namespaceSelector",
        "native_histogram_bucket_limit": "nativeHistogramBucketLimit",
        "native_histogram_min_bucket_factor": "nativeHistogramMinBucketFactor",
        "pod_metrics_endpoints": "podMetricsEndpoints",
        "pod_target_labels": "podTargetLabels",
        "sample_limit": "sampleLimit",
        "scrape_class": "scrapeClass",
        "scrape_classic_histograms": "scrapeClassicHistograms",
        "scrape_native_histograms": "scrapeNativeHistograms",
        "scrape_protocols": "scrapeProtocols",
        "selector_mechanism": "selectorMechanism",
        "target_limit": "targetLimit",
    },
)
class PodMonitorSpec:
    def __init__(
        self,
        *,
        selector: typing.Union["PodMonitorSpecSelector", typing.Dict[builtins.str, typing.Any]],
        attach_metadata: typing.Optional[typing.Union["PodMonitorSpecAttachMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
        body_size_limit: typing.Optional[builtins.str] = None,
        convert_classic_histograms_to_nhcb: typing.Optional[builtins.bool] = None,
        fallback_scrape_protocol: typing.Optional["PodMonitorSpecFallbackScrapeProtocol"] = None,
        job_label: typing.Optional[builtins.str] = None,
        keep_dropped_targets: typing.Optional[jsii.Number] = None,
        label_limit: typing.Optional[jsii.Number] = None,
        label_name_length_limit: typing.Optional[jsii.Number] = None,
        label_value_length_limit: typing.Optional[jsii.Number] = None,
        namespace_selector: typing.Optional[typing.Union["PodMonitorSpecNamespaceSelector", typing.Dict[builtins.str, typing.Any]]] = None,
        native_histogram_bucket_limit: typing.Optional[jsii.Number] = None,
        native_histogram_min_bucket_factor: typing.Optional["PodMonitorSpecNativeHistogramMinBucketFactor"] = None,
        pod_metrics_endpoints: typing.Optional[typing.Sequence[typing.Union["PodMonitorSpecPodMetricsEndpoints", typing.Dict[builtins.str, typing.Any]]]] = None,
        pod_target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        sample_limit: typing.Optional[jsii.Number] = None,
        scrape_class: typing.Optional[builtins.str] = None,
        scrape_classic_histograms: typing.Optional[builtins.bool] = None,
        scrape_native_histograms: typing.Optional[builtins.bool] = None,
        scrape_protocols: typing.Optional[typing.Sequence["PodMonitorSpecScrapeProtocols"]] = None,
        selector_mechanism: typing.Optional["PodMonitorSpecSelectorMechanism"] = None,
        target_limit: typing.Optional[jsii.Number] = None,
    ) -> None:
        '''spec defines the specification of desired Pod selection for target discovery by Prometheus.

        :param selector: selector defines the label selector to select the Kubernetes ``Pod`` objects to scrape metrics from.
        :param attach_metadata: attachMetadata defines additional metadata which is added to the discovered targets. It requires Prometheus >= v2.35.0.
        :param body_size_limit: bodySizeLimit when defined specifies a job level limit on the size of uncompressed response body that will be accepted by Prometheus. It requires Prometheus >= v2.28.0.
        :param convert_classic_histograms_to_nhcb: convertClassicHistogramsToNHCB defines whether to convert all scraped classic histograms into a native histogram with custom buckets. It requires Prometheus >= v3.0.0.
        :param fallback_scrape_protocol: fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type. It requires Prometheus >= v3.0.0.
        :param job_label: jobLabel defines the label to use to retrieve the job name from. ``jobLabel`` selects the label from the associated Kubernetes ``Pod`` object which will be used as the ``job`` label for all metrics. For example if ``jobLabel`` is set to ``foo`` and the Kubernetes ``Pod`` object is labeled with ``foo: bar``, then Prometheus adds the ``job="bar"`` label to all ingested metrics. If the value of this field is empty, the ``job`` label of the metrics defaults to the namespace and name of the PodMonitor object (e.g. ``<namespace>/<name>``).
        :param keep_dropped_targets: keepDroppedTargets defines the per-scrape limit on the number of targets dropped by relabeling that will be kept in memory. 0 means no limit. It requires Prometheus >= v2.47.0.
        :param label_limit: labelLimit defines the per-scrape limit on number of labels that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param label_name_length_limit: labelNameLengthLimit defines the per-scrape limit on length of labels name that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param label_value_length_limit: labelValueLengthLimit defines the per-scrape limit on length of labels value that will be accepted for a sample. It requires Prometheus >= v2.27.0.
        :param namespace_selector: namespaceSelector defines in which namespace(s) Prometheus should discover the pods. By default, the pods are discovered in the same namespace as the ``PodMonitor`` object but it is possible to select pods across different/all namespaces.
        :param native_histogram_bucket_limit: nativeHistogramBucketLimit defines ff there are more than this many buckets in a native histogram, buckets will be merged to stay within the limit. It requires Prometheus >= v2.45.0.
        :param native_histogram_min_bucket_factor: nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently. It requires Prometheus >= v2.50.0.
        :param pod_metrics_endpoints: podMetricsEndpoints defines how to scrape metrics from the selected pods.
        :param pod_target_labels: podTargetLabels defines the labels which are transferred from the associated Kubernetes ``Pod`` object onto the ingested metrics.
        :param sample_limit: sampleLimit defines a per-scrape limit on the number of scraped samples that will be accepted.
        :param scrape_class: scrapeClass defines the scrape class to apply.
        :param scrape_classic_histograms: scrapeClassicHistograms defines whether to scrape a classic histogram that is also exposed as a native histogram. It requires Prometheus >= v2.45.0. Notice: ``scrapeClassicHistograms`` corresponds to the ``always_scrape_classic_histograms`` field in the Prometheus configuration.
        :param scrape_native_histograms: scrapeNativeHistograms defines whether to enable scraping of native histograms. It requires Prometheus >= v3.8.0.
        :param scrape_protocols: scrapeProtocols defines the protocols to negotiate during a scrape. It tells clients the protocols supported by Prometheus in order of preference (from most to least preferred). If unset, Prometheus uses its default value. It requires Prometheus >= v2.49.0.
        :param selector_mechanism: selectorMechanism defines the mechanism used to select the endpoints to scrape. By default, the selection process relies on relabel configurations to filter the discovered targets. Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters. Which strategy is best for your use case needs to be carefully evaluated. It requires Prometheus >= v2.17.0.
        :param target_limit: targetLimit defines a limit on the number of scraped targets that will be accepted.

        :schema: PodMonitorSpec
        '''
        if isinstance(selector, dict):
            selector = PodMonitorSpecSelector(**selector)
        if isinstance(attach_metadata, dict):
            attach_metadata = PodMonitorSpecAttachMetadata(**attach_metadata)
        if isinstance(namespace_selector, dict):
            namespace_selector = PodMonitorSpecNamespaceSelector(**namespace_selector)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__56e6c39655af5a50315d0ca393864bb146b2be8cdfa9fea6144d56dcb40aca32)
            check_type(argname="argument selector", value=selector, expected_type=type_hints["selector"])
            check_type(argname="argument attach_metadata", value=attach_metadata, expected_type=type_hints["attach_metadata"])
            check_type(argname="argument body_size_limit", value=body_size_limit, expected_type=type_hints["body_size_limit"])
            check_type(argname="argument convert_classic_histograms_to_nhcb", value=convert_classic_histograms_to_nhcb, expected_type=type_hints["convert_classic_histograms_to_nhcb"])
            check_type(argname="argument fallback_scrape_protocol", value=fallback_scrape_protocol, expected_type=type_hints["fallback_scrape_protocol"])
            check_type(argname="argument job_label", value=job_label, expected_type=type_hints["job_label"])
            check_type(argname="argument keep_dropped_targets", value=keep_dropped_targets, expected_type=type_hints["keep_dropped_targets"])
            check_type(argname="argument label_limit", value=label_limit, expected_type=type_hints["label_limit"])
            check_type(argname="argument label_name_length_limit", value=label_name_length_limit, expected_type=type_hints["label_name_length_limit"])
            check_type(argname="argument label_value_length_limit", value=label_value_length_limit, expected_type=type_hints["label_value_length_limit"])
            check_type(argname="argument namespace_selector", value=namespace_selector, expected_type=type_hints["namespace_selector"])
            check_type(argname="argument native_histogram_bucket_limit", value=native_histogram_bucket_limit, expected_type=type_hints["native_histogram_bucket_limit"])
            check_type(argname="argument native_histogram_min_bucket_factor", value=native_histogram_min_bucket_factor, expected_type=type_hints["native_histogram_min_bucket_factor"])
            check_type(argname="argument pod_metrics_endpoints", value=pod_metrics_endpoints, expected_type=type_hints["pod_metrics_endpoints"])
            check_type(argname="argument pod_target_labels", value=pod_target_labels, expected_type=type_hints["pod_target_labels"])
            check_type(argname="argument sample_limit", value=sample_limit, expected_type=type_hints["sample_limit"])
            check_type(argname="argument scrape_class", value=scrape_class, expected_type=type_hints["scrape_class"])
            check_type(argname="argument scrape_classic_histograms", value=scrape_classic_histograms, expected_type=type_hints["scrape_classic_histograms"])
            check_type(argname="argument scrape_native_histograms", value=scrape_native_histograms, expected_type=type_hints["scrape_native_histograms"])
            check_type(argname="argument scrape_protocols", value=scrape_protocols, expected_type=type_hints["scrape_protocols"])
            check_type(argname="argument selector_mechanism", value=selector_mechanism, expected_type=type_hints["selector_mechanism"])
            check_type(argname="argument target_limit", value=target_limit, expected_type=type_hints["target_limit"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "selector": selector,
        }
        if attach_metadata is not None:
            self._values["attach_metadata"] = attach_metadata
        if body_size_limit is not None:
            self._values["body_size_limit"] = body_size_limit
        if convert_classic_histograms_to_nhcb is not None:
            self._values["convert_classic_histograms_to_nhcb"] = convert_classic_histograms_to_nhcb
        if fallback_scrape_protocol is not None:
            self._values["fallback_scrape_protocol"] = fallback_scrape_protocol
        if job_label is not None:
            self._values["job_label"] = job_label
        if keep_dropped_targets is not None:
            self._values["keep_dropped_targets"] = keep_dropped_targets
        if label_limit is not None:
            self._values["label_limit"] = label_limit
        if label_name_length_limit is not None:
            self._values["label_name_length_limit"] = label_name_length_limit
        if label_value_length_limit is not None:
            self._values["label_value_length_limit"] = label_value_length_limit
        if namespace_selector is not None:
            self._values["namespace_selector"] = namespace_selector
        if native_histogram_bucket_limit is not None:
            self._values["native_histogram_bucket_limit"] = native_histogram_bucket_limit
        if native_histogram_min_bucket_factor is not None:
            self._values["native_histogram_min_bucket_factor"] = native_histogram_min_bucket_factor
        if pod_metrics_endpoints is not None:
            self._values["pod_metrics_endpoints"] = pod_metrics_endpoints
        if pod_target_labels is not None:
            self._values["pod_target_labels"] = pod_target_labels
        if sample_limit is not None:
            self._values["sample_limit"] = sample_limit
        if scrape_class is not None:
            self._values["scrape_class"] = scrape_class
        if scrape_classic_histograms is not None:
            self._values["scrape_classic_histograms"] = scrape_classic_histograms
        if scrape_native_histograms is not None:
            self._values["scrape_native_histograms"] = scrape_native_histograms
        if scrape_protocols is not None:
            self._values["scrape_protocols"] = scrape_protocols
        if selector_mechanism is not None:
            self._values["selector_mechanism"] = selector_mechanism
        if target_limit is not None:
            self._values["target_limit"] = target_limit

    @builtins.property
    def selector(self) -> "PodMonitorSpecSelector":
        '''selector defines the label selector to select the Kubernetes ``Pod`` objects to scrape metrics from.

        :schema: PodMonitorSpec#selector
        '''
        result = self._values.get("selector")
        assert result is not None, "Required property 'selector' is missing"
        return typing.cast("PodMonitorSpecSelector", result)

    @builtins.property
    def attach_metadata(self) -> typing.Optional["PodMonitorSpecAttachMetadata"]:
        '''attachMetadata defines additional metadata which is added to the discovered targets.

        It requires Prometheus >= v2.35.0.

        :schema: PodMonitorSpec#attachMetadata
        '''
        result = self._values.get("attach_metadata")
        return typing.cast(typing.Optional["PodMonitorSpecAttachMetadata"], result)

    @builtins.property
    def body_size_limit(self) -> typing.Optional[builtins.str]:
        '''bodySizeLimit when defined specifies a job level limit on the size of uncompressed response body that will be accepted by Prometheus.

        It requires Prometheus >= v2.28.0.

        :schema: PodMonitorSpec#bodySizeLimit
        '''
        result = self._values.get("body_size_limit")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def convert_classic_histograms_to_nhcb(self) -> typing.Optional[builtins.bool]:
        '''convertClassicHistogramsToNHCB defines whether to convert all scraped classic histograms into a native histogram with custom buckets.

        It requires Prometheus >= v3.0.0.

        :schema: PodMonitorSpec#convertClassicHistogramsToNHCB
        '''
        result = self._values.get("convert_classic_histograms_to_nhcb")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def fallback_scrape_protocol(
        self,
    ) -> typing.Optional["PodMonitorSpecFallbackScrapeProtocol"]:
        '''fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type.

        It requires Prometheus >= v3.0.0.

        :schema: PodMonitorSpec#fallbackScrapeProtocol
        '''
        result = self._values.get("fallback_scrape_protocol")
        return typing.cast(typing.Optional["PodMonitorSpecFallbackScrapeProtocol"], result)

    @builtins.property
    def job_label(self) -> typing.Optional[builtins.str]:
        '''jobLabel defines the label to use to retrieve the job name from.

        ``jobLabel`` selects the label from the associated Kubernetes ``Pod``
        object which will be used as the ``job`` label for all metrics.

        For example if ``jobLabel`` is set to ``foo`` and the Kubernetes ``Pod``
        object is labeled with ``foo: bar``, then Prometheus adds the ``job="bar"``
        label to all ingested metrics.

        If the value of this field is empty, the ``job`` label of the metrics
        defaults to the namespace and name of the PodMonitor object (e.g. ``<namespace>/<name>``).

        :schema: PodMonitorSpec#jobLabel
        '''
        result = self._values.get("job_label")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def keep_dropped_targets(self) -> typing.Optional[jsii.Number]:
        '''keepDroppedTargets defines the per-scrape limit on the number of targets dropped by relabeling that will be kept in memory.

        0 means no limit.

        It requires Prometheus >= v2.47.0.

        :schema: PodMonitorSpec#keepDroppedTargets
        '''
        result = self._values.get("keep_dropped_targets")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_limit(self) -> typing.Optional[jsii.Number]:
        '''labelLimit defines the per-scrape limit on number of labels that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: PodMonitorSpec#labelLimit
        '''
        result = self._values.get("label_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_name_length_limit(self) -> typing.Optional[jsii.Number]:
        '''labelNameLengthLimit defines the per-scrape limit on length of labels name that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: PodMonitorSpec#labelNameLengthLimit
        '''
        result = self._values.get("label_name_length_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def label_value_length_limit(self) -> typing.Optional[jsii.Number]:
        '''labelValueLengthLimit defines the per-scrape limit on length of labels value that will be accepted for a sample.

        It requires Prometheus >= v2.27.0.

        :schema: PodMonitorSpec#labelValueLengthLimit
        '''
        result = self._values.get("label_value_length_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def namespace_selector(self) -> typing.Optional["PodMonitorSpecNamespaceSelector"]:
        '''namespaceSelector defines in which namespace(s) Prometheus should discover the pods.

        By default, the pods are discovered in the same namespace as the ``PodMonitor`` object but it is possible to select pods across different/all namespaces.

        :schema: PodMonitorSpec#namespaceSelector
        '''
        result = self._values.get("namespace_selector")
        return typing.cast(typing.Optional["PodMonitorSpecNamespaceSelector"], result)

    @builtins.property
    def native_histogram_bucket_limit(self) -> typing.Optional[jsii.Number]:
        '''nativeHistogramBucketLimit defines ff there are more than this many buckets in a native histogram, buckets will be merged to stay within the limit.

        It requires Prometheus >= v2.45.0.

        :schema: PodMonitorSpec#nativeHistogramBucketLimit
        '''
        result = self._values.get("native_histogram_bucket_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def native_histogram_min_bucket_factor(
        self,
    ) -> typing.Optional["PodMonitorSpecNativeHistogramMinBucketFactor"]:
        '''nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently.

        It requires Prometheus >= v2.50.0.

        :schema: PodMonitorSpec#nativeHistogramMinBucketFactor
        '''
        result = self._values.get("native_histogram_min_bucket_factor")
        return typing.cast(typing.Optional["PodMonitorSpecNativeHistogramMinBucketFactor"], result)

    @builtins.property
    def pod_metrics_endpoints(
        self,
    ) -> typing.Optional[typing.List["PodMonitorSpecPodMetricsEndpoints"]]:
        '''podMetricsEndpoints defines how to scrape metrics from the selected pods.

        :schema: PodMonitorSpec#podMetricsEndpoints
        '''
        result = self._values.get("pod_metrics_endpoints")
        return typing.cast(typing.Optional[typing.List["PodMonitorSpecPodMetricsEndpoints"]], result)

    @builtins.property
    def pod_target_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''podTargetLabels defines the labels which are transferred from the associated Kubernetes ``Pod`` object onto the ingested metrics.

        :schema: PodMonitorSpec#podTargetLabels
        '''
        result = self._values.get("pod_target_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def sample_limit(self) -> typing.Optional[jsii.Number]:
        '''sampleLimit defines a per-scrape limit on the number of scraped samples that will be accepted.

        :schema: PodMonitorSpec#sampleLimit
        '''
        result = self._values.get("sample_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def scrape_class(self) -> typing.Optional[builtins.str]:
        '''scrapeClass defines the scrape class to apply.

        :schema: PodMonitorSpec#scrapeClass
        '''
        result = self._values.get("scrape_class")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scrape_classic_histograms(self) -> typing.Optional[builtins.bool]:
        '''scrapeClassicHistograms defines whether to scrape a classic histogram that is also exposed as a native histogram.

        It requires Prometheus >= v2.45.0.

        Notice: ``scrapeClassicHistograms`` corresponds to the ``always_scrape_classic_histograms`` field in the Prometheus configuration.

        :schema: PodMonitorSpec#scrapeClassicHistograms
        '''
        result = self._values.get("scrape_classic_histograms")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scrape_native_histograms(self) -> typing.Optional[builtins.bool]:
        '''scrapeNativeHistograms defines whether to enable scraping of native histograms.

        It requires Prometheus >= v3.8.0.

        :schema: PodMonitorSpec#scrapeNativeHistograms
        '''
        result = self._values.get("scrape_native_histograms")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def scrape_protocols(
        self,
    ) -> typing.Optional[typing.List["PodMonitorSpecScrapeProtocols"]]:
        '''scrapeProtocols defines the protocols to negotiate during a scrape.

        It tells clients the
        protocols supported by Prometheus in order of preference (from most to least preferred).

        If unset, Prometheus uses its default value.

        It requires Prometheus >= v2.49.0.

        :schema: PodMonitorSpec#scrapeProtocols
        '''
        result = self._values.get("scrape_protocols")
        return typing.cast(typing.Optional[typing.List["PodMonitorSpecScrapeProtocols"]], result)

    @builtins.property
    def selector_mechanism(self) -> typing.Optional["PodMonitorSpecSelectorMechanism"]:
        '''selectorMechanism defines the mechanism used to select the endpoints to scrape.

        By default, the selection process relies on relabel configurations to filter the discovered targets.
        Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters.
        Which strategy is best for your use case needs to be carefully evaluated.

        It requires Prometheus >= v2.17.0.

        :schema: PodMonitorSpec#selectorMechanism
        '''
        result = self._values.get("selector_mechanism")
        return typing.cast(typing.Optional["PodMonitorSpecSelectorMechanism"], result)

    @builtins.property
    def target_limit(self) -> typing.Optional[jsii.Number]:
        '''targetLimit defines a limit on the number of scraped targets that will be accepted.

        :schema: PodMonitorSpec#targetLimit
        '''
        result = self._values.get("target_limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecAttachMetadata",
    jsii_struct_bases=[],
    name_mapping={"node": "node"},
)
class PodMonitorSpecAttachMetadata:
    def __init__(self, *, node: typing.Optional[builtins.bool] = None) -> None:
        '''attachMetadata defines additional metadata which is added to the discovered targets.

        It requires Prometheus >= v2.35.0.

        :param node: node when set to true, Prometheus attaches node metadata to the discovered targets. The Prometheus service account must have the ``list`` and ``watch`` permissions on the ``Nodes`` objects. Node metadata labels are not automatically added to scraped metrics. They are exposed as ``__meta_kubernetes_node_*`` labels and can be copied to timeseries with relabeling configuration.

        :schema: PodMonitorSpecAttachMetadata
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5c76cd61c4e9897ade3a66b2507b799e8bbde824d132c2309ada1674e1ec1b88)
            check_type(argname="argument node", value=node, expected_type=type_hints["node"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if node is not None:
            self._values["node"] = node

    @builtins.property
    def node(self) -> typing.Optional[builtins.bool]:
        '''node when set to true, Prometheus attaches node metadata to the discovered targets.

        The Prometheus service account must have the ``list`` and ``watch``
        permissions on the ``Nodes`` objects.

        Node metadata labels are not automatically added to scraped metrics. They are
        exposed as ``__meta_kubernetes_node_*`` labels and can be copied to timeseries
        with relabeling configuration.

        :schema: PodMonitorSpecAttachMetadata#node
        '''
        result = self._values.get("node")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecAttachMetadata(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecFallbackScrapeProtocol"
)
class PodMonitorSpecFallbackScrapeProtocol(enum.Enum):
    '''fallbackScrapeProtocol defines the protocol to use if a scrape returns blank, unparseable, or otherwise invalid Content-Type.

    It requires Prometheus >= v3.0.0.

    :schema: PodMonitorSpecFallbackScrapeProtocol
    '''

    PROMETHEUS_PROTO = "PROMETHEUS_PROTO"
    '''PrometheusProto.'''
    OPEN_METRICS_TEXT0_0_1 = "OPEN_METRICS_TEXT0_0_1"
    '''OpenMetricsText0.0.1.'''
    OPEN_METRICS_TEXT1_0_0 = "OPEN_METRICS_TEXT1_0_0"
    '''OpenMetricsText1.0.0.'''
    PROMETHEUS_TEXT0_0_4 = "PROMETHEUS_TEXT0_0_4"
    '''PrometheusText0.0.4.'''
    PROMETHEUS_TEXT1_0_0 = "PROMETHEUS_TEXT1_0_0"
    '''PrometheusText1.0.0.'''


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecNamespaceSelector",
    jsii_struct_bases=[],
    name_mapping={"any": "any", "match_names": "matchNames"},
)
class PodMonitorSpecNamespaceSelector:
    def __init__(
        self,
        *,
        any: typing.Optional[builtins.bool] = None,
        match_names: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''namespaceSelector defines in which namespace(s) Prometheus should discover the pods.

        By default, the pods are discovered in the same namespace as the ``PodMonitor`` object but it is possible to select pods across different/all namespaces.

        :param any: any defines the boolean describing whether all namespaces are selected in contrast to a list restricting them.
        :param match_names: matchNames defines the list of namespace names to select from.

        :schema: PodMonitorSpecNamespaceSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a602b2379fba40ecb24e39e6a0376c5b1947c6f583b350cb91326c95b6da22a4)
            check_type(argname="argument any", value=any, expected_type=type_hints["any"])
            check_type(argname="argument match_names", value=match_names, expected_type=type_hints["match_names"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if any is not None:
            self._values["any"] = any
        if match_names is not None:
            self._values["match_names"] = match_names

    @builtins.property
    def any(self) -> typing.Optional[builtins.bool]:
        '''any defines the boolean describing whether all namespaces are selected in contrast to a list restricting them.

        :schema: PodMonitorSpecNamespaceSelector#any
        '''
        result = self._values.get("any")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def match_names(self) -> typing.Optional[typing.List[builtins.str]]:
        '''matchNames defines the list of namespace names to select from.

        :schema: PodMonitorSpecNamespaceSelector#matchNames
        '''
        result = self._values.get("match_names")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecNamespaceSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class PodMonitorSpecNativeHistogramMinBucketFactor(
    metaclass=jsii.JSIIMeta,
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecNativeHistogramMinBucketFactor",
):
    '''nativeHistogramMinBucketFactor defines if the growth factor of one bucket to the next is smaller than this, buckets will be merged to increase the factor sufficiently.

    It requires Prometheus >= v2.50.0.

    :schema: PodMonitorSpecNativeHistogramMinBucketFactor
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "PodMonitorSpecNativeHistogramMinBucketFactor":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__f4bf03826c5fdc12e837bb51d9cfc9de55e2b0967ba6cbc09f3d441134bd3c5a)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PodMonitorSpecNativeHistogramMinBucketFactor", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "PodMonitorSpecNativeHistogramMinBucketFactor":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__65f096d93bef845e7d0f2947a17a8209c119d4334c1be0d1f244e99cefe17bfc)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PodMonitorSpecNativeHistogramMinBucketFactor", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpoints",
    jsii_struct_bases=[],
    name_mapping={
        "authorization": "authorization",
        "basic_auth": "basicAuth",
        "bearer_token_secret": "bearerTokenSecret",
        "enable_http2": "enableHttp2",
        "filter_running": "filterRunning",
        "follow_redirects": "followRedirects",
        "honor_labels": "honorLabels",
        "honor_timestamps": "honorTimestamps",
        "interval": "interval",
        "metric_relabelings": "metricRelabelings",
        "no_proxy": "noProxy",
        "oauth2": "oauth2",
        "params": "params",
        "path": "path",
        "port": "port",
        "port_number": "portNumber",
        "proxy_connect_header": "proxyConnectHeader",
        "proxy_from_environment": "proxyFromEnvironment",
        "proxy_url": "proxyUrl",
        "relabelings": "relabelings",
        "scheme": "scheme",
        "scrape_timeout": "scrapeTimeout",
        "target_port": "targetPort",
        "tls_config": "tlsConfig",
        "track_timestamps_staleness": "trackTimestampsStaleness",
    },
)
class PodMonitorSpecPodMetricsEndpoints:
    def __init__(
        self,
        *,
        authorization: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsAuthorization", typing.Dict[builtins.str, typing.Any]]] = None,
        basic_auth: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsBasicAuth", typing.Dict[builtins.str, typing.Any]]] = None,
        bearer_token_secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsBearerTokenSecret", typing.Dict[builtins.str, typing.Any]]] = None,
        enable_http2: typing.Optional[builtins.bool] = None,
        filter_running: typing.Optional[builtins.bool] = None,
        follow_redirects: typing.Optional[builtins.bool] = None,
        honor_labels: typing.Optional[builtins.bool] = None,
        honor_timestamps: typing.Optional[builtins.bool] = None,
        interval: typing.Optional[builtins.str] = None,
        metric_relabelings: typing.Optional[typing.Sequence[typing.Union["PodMonitorSpecPodMetricsEndpointsMetricRelabelings", typing.Dict[builtins.str, typing.Any]]]] = None,
        no_proxy: typing.Optional[builtins.str] = None,
        oauth2: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2", typing.Dict[builtins.str, typing.Any]]] = None,
        params: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[builtins.str]]] = None,
        path: typing.Optional[builtins.str] = None,
        port: typing.Optional[builtins.str] = None,
        port_number: typing.Optional[jsii.Number] = None,
        proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union["PodMonitorSpecPodMetricsEndpointsProxyConnectHeader", typing.Dict[builtins.str, typing.Any]]]]] = None,
        proxy_from_environment: typing.Optional[builtins.bool] = None,
        proxy_url: typing.Optional[builtins.str] = None,
        relabelings: typing.Optional[typing.Sequence[typing.Union["PodMonitorSpecPodMetricsEndpointsRelabelings", typing.Dict[builtins.str, typing.Any]]]] = None,
        scheme: typing.Optional["PodMonitorSpecPodMetricsEndpointsScheme"] = None,
        scrape_timeout: typing.Optional[builtins.str] = None,
        target_port: typing.Optional["PodMonitorSpecPodMetricsEndpointsTargetPort"] = None,
        tls_config: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfig", typing.Dict[builtins.str, typing.Any]]] = None,
        track_timestamps_staleness: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''PodMetricsEndpoint defines an endpoint serving Prometheus metrics to be scraped by Prometheus.

        :param authorization: authorization configures the Authorization header credentials used by the client. Cannot be set at the same time as ``basicAuth``, ``bearerTokenSecret`` or ``oauth2``.
        :param basic_auth: basicAuth defines the Basic Authentication credentials used by the client. Cannot be set at the same time as ``authorization``, ``bearerTokenSecret`` or ``oauth2``.
        :param bearer_token_secret: bearerTokenSecret defines a key of a Secret containing the bearer token used by the client for authentication. The secret needs to be in the same namespace as the custom resource and readable by the Prometheus Operator. Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``oauth2``. Deprecated: use ``authorization`` instead.
        :param enable_http2: enableHttp2 can be used to disable HTTP2.
        :param filter_running: filterRunning when true, the pods which are not running (e.g. either in Failed or Succeeded state) are dropped during the target discovery. If unset, the filtering is enabled. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase
        :param follow_redirects: followRedirects defines whether the client should follow HTTP 3xx redirects.
        :param honor_labels: honorLabels when true preserves the metric's labels when they collide with the target's labels.
        :param honor_timestamps: honorTimestamps defines whether Prometheus preserves the timestamps when exposed by the target.
        :param interval: interval at which Prometheus scrapes the metrics from the target. If empty, Prometheus uses the global scrape interval.
        :param metric_relabelings: metricRelabelings defines the relabeling rules to apply to the samples before ingestion.
        :param no_proxy: noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying. IP and domain names can contain port numbers. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param oauth2: oauth2 defines the OAuth2 settings used by the client. It requires Prometheus >= 2.27.0. Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``bearerTokenSecret``.
        :param params: params define optional HTTP URL parameters.
        :param path: path defines the HTTP path from which to scrape for metrics. If empty, Prometheus uses the default value (e.g. ``/metrics``).
        :param port: port defines the ``Pod`` port name which exposes the endpoint. If the pod doesn't expose a port with the same name, it will result in no targets being discovered. If a ``Pod`` has multiple ``Port``s with the same name (which is not recommended), one target instance per unique port number will be generated. It takes precedence over the ``portNumber`` and ``targetPort`` fields.
        :param port_number: portNumber defines the ``Pod`` port number which exposes the endpoint. The ``Pod`` must declare the specified ``Port`` in its spec or the target will be dropped by Prometheus. This cannot be used to enable scraping of an undeclared port. To scrape targets on a port which isn't exposed, you need to use relabeling to override the ``__address__`` label (but beware of duplicate targets if the ``Pod`` has other declared ports). In practice Prometheus will select targets for which the matches the target's __meta_kubernetes_pod_container_port_number.
        :param proxy_connect_header: proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_from_environment: proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY). It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_url: proxyUrl defines the HTTP proxy server to use.
        :param relabelings: relabelings defines the relabeling rules to apply the target's metadata labels. The Operator automatically adds relabelings for a few standard Kubernetes fields. The original scrape job's name is available via the ``__tmp_prometheus_job_name`` label. More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config
        :param scheme: scheme defines the HTTP scheme to use for scraping.
        :param scrape_timeout: scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed. If empty, Prometheus uses the global scrape timeout unless it is less than the target's scrape interval value in which the latter is used. The value cannot be greater than the scrape interval otherwise the operator will reject the resource.
        :param target_port: targetPort defines the name or number of the target port of the ``Pod`` object behind the Service, the port must be specified with container port property. Deprecated: use 'port' or 'portNumber' instead.
        :param tls_config: tlsConfig defines the TLS configuration used by the client.
        :param track_timestamps_staleness: trackTimestampsStaleness defines whether Prometheus tracks staleness of the metrics that have an explicit timestamp present in scraped data. Has no effect if ``honorTimestamps`` is false. It requires Prometheus >= v2.48.0.

        :schema: PodMonitorSpecPodMetricsEndpoints
        '''
        if isinstance(authorization, dict):
            authorization = PodMonitorSpecPodMetricsEndpointsAuthorization(**authorization)
        if isinstance(basic_auth, dict):
            basic_auth = PodMonitorSpecPodMetricsEndpointsBasicAuth(**basic_auth)
        if isinstance(bearer_token_secret, dict):
            bearer_token_secret = PodMonitorSpecPodMetricsEndpointsBearerTokenSecret(**bearer_token_secret)
        if isinstance(oauth2, dict):
            oauth2 = PodMonitorSpecPodMetricsEndpointsOauth2(**oauth2)
        if isinstance(tls_config, dict):
            tls_config = PodMonitorSpecPodMetricsEndpointsTlsConfig(**tls_config)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2db91519206523057c65f283447de7c24320f36c98c8269334cd8c4fdc9f1745)
            check_type(argname="argument authorization", value=authorization, expected_type=type_hints["authorization"])
            check_type(argname="argument basic_auth", value=basic_auth, expected_type=type_hints["basic_auth"])
            check_type(argname="argument bearer_token_secret", value=bearer_token_secret, expected_type=type_hints["bearer_token_secret"])
            check_type(argname="argument enable_http2", value=enable_http2, expected_type=type_hints["enable_http2"])
            check_type(argname="argument filter_running", value=filter_running, expected_type=type_hints["filter_running"])
            check_type(argname="argument follow_redirects", value=follow_redirects, expected_type=type_hints["follow_redirects"])
            check_type(argname="argument honor_labels", value=honor_labels, expected_type=type_hints["honor_labels"])
            check_type(argname="argument honor_timestamps", value=honor_timestamps, expected_type=type_hints["honor_timestamps"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument metric_relabelings", value=metric_relabelings, expected_type=type_hints["metric_relabelings"])
            check_type(argname="argument no_proxy", value=no_proxy, expected_type=type_hints["no_proxy"])
            check_type(argname="argument oauth2", value=oauth2, expected_type=type_hints["oauth2"])
            check_type(argname="argument params", value=params, expected_type=type_hints["params"])
            check_type(argname="argument path", value=path, expected_type=type_hints["path"])
            check_type(argname="argument port", value=port, expected_type=type_hints["port"])
            check_type(argname="argument port_number", value=port_number, expected_type=type_hints["port_number"])
            check_type(argname="argument proxy_connect_header", value=proxy_connect_header, expected_type=type_hints["proxy_connect_header"])
            check_type(argname="argument proxy_from_environment", value=proxy_from_environment, expected_type=type_hints["proxy_from_environment"])
            check_type(argname="argument proxy_url", value=proxy_url, expected_type=type_hints["proxy_url"])
            check_type(argname="argument relabelings", value=relabelings, expected_type=type_hints["relabelings"])
            check_type(argname="argument scheme", value=scheme, expected_type=type_hints["scheme"])
            check_type(argname="argument scrape_timeout", value=scrape_timeout, expected_type=type_hints["scrape_timeout"])
            check_type(argname="argument target_port", value=target_port, expected_type=type_hints["target_port"])
            check_type(argname="argument tls_config", value=tls_config, expected_type=type_hints["tls_config"])
            check_type(argname="argument track_timestamps_staleness", value=track_timestamps_staleness, expected_type=type_hints["track_timestamps_staleness"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if authorization is not None:
            self._values["authorization"] = authorization
        if basic_auth is not None:
            self._values["basic_auth"] = basic_auth
        if bearer_token_secret is not None:
            self._values["bearer_token_secret"] = bearer_token_secret
        if enable_http2 is not None:
            self._values["enable_http2"] = enable_http2
        if filter_running is not None:
            self._values["filter_running"] = filter_running
        if follow_redirects is not None:
            self._values["follow_redirects"] = follow_redirects
        if honor_labels is not None:
            self._values["honor_labels"] = honor_labels
        if honor_timestamps is not None:
            self._values["honor_timestamps"] = honor_timestamps
        if interval is not None:
            self._values["interval"] = interval
        if metric_relabelings is not None:
            self._values["metric_relabelings"] = metric_relabelings
        if no_proxy is not None:
            self._values["no_proxy"] = no_proxy
        if oauth2 is not None:
            self._values["oauth2"] = oauth2
        if params is not None:
            self._values["params"] = params
        if path is not None:
            self._values["path"] = path
        if port is not None:
            self._values["port"] = port
        if port_number is not None:
            self._values["port_number"] = port_number
        if proxy_connect_header is not None:
            self._values["proxy_connect_header"] = proxy_connect_header
        if proxy_from_environment is not None:
            self._values["proxy_from_environment"] = proxy_from_environment
        if proxy_url is not None:
            self._values["proxy_url"] = proxy_url
        if relabelings is not None:
            self._values["relabelings"] = relabelings
        if scheme is not None:
            self._values["scheme"] = scheme
        if scrape_timeout is not None:
            self._values["scrape_timeout"] = scrape_timeout
        if target_port is not None:
            self._values["target_port"] = target_port
        if tls_config is not None:
            self._values["tls_config"] = tls_config
        if track_timestamps_staleness is not None:
            self._values["track_timestamps_staleness"] = track_timestamps_staleness

    @builtins.property
    def authorization(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsAuthorization"]:
        '''authorization configures the Authorization header credentials used by the client.

        Cannot be set at the same time as ``basicAuth``, ``bearerTokenSecret`` or ``oauth2``.

        :schema: PodMonitorSpecPodMetricsEndpoints#authorization
        '''
        result = self._values.get("authorization")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsAuthorization"], result)

    @builtins.property
    def basic_auth(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsBasicAuth"]:
        '''basicAuth defines the Basic Authentication credentials used by the client.

        Cannot be set at the same time as ``authorization``, ``bearerTokenSecret`` or ``oauth2``.

        :schema: PodMonitorSpecPodMetricsEndpoints#basicAuth
        '''
        result = self._values.get("basic_auth")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsBasicAuth"], result)

    @builtins.property
    def bearer_token_secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsBearerTokenSecret"]:
        '''bearerTokenSecret defines a key of a Secret containing the bearer token used by the client for authentication.

        The secret needs to be in the
        same namespace as the custom resource and readable by the Prometheus
        Operator.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``oauth2``.

        Deprecated: use ``authorization`` instead.

        :schema: PodMonitorSpecPodMetricsEndpoints#bearerTokenSecret
        '''
        result = self._values.get("bearer_token_secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsBearerTokenSecret"], result)

    @builtins.property
    def enable_http2(self) -> typing.Optional[builtins.bool]:
        '''enableHttp2 can be used to disable HTTP2.

        :schema: PodMonitorSpecPodMetricsEndpoints#enableHttp2
        '''
        result = self._values.get("enable_http2")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def filter_running(self) -> typing.Optional[builtins.bool]:
        '''filterRunning when true, the pods which are not running (e.g. either in Failed or Succeeded state) are dropped during the target discovery.

        If unset, the filtering is enabled.

        More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-phase

        :schema: PodMonitorSpecPodMetricsEndpoints#filterRunning
        '''
        result = self._values.get("filter_running")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def follow_redirects(self) -> typing.Optional[builtins.bool]:
        '''followRedirects defines whether the client should follow HTTP 3xx redirects.

        :schema: PodMonitorSpecPodMetricsEndpoints#followRedirects
        '''
        result = self._values.get("follow_redirects")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def honor_labels(self) -> typing.Optional[builtins.bool]:
        '''honorLabels when true preserves the metric's labels when they collide with the target's labels.

        :schema: PodMonitorSpecPodMetricsEndpoints#honorLabels
        '''
        result = self._values.get("honor_labels")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def honor_timestamps(self) -> typing.Optional[builtins.bool]:
        '''honorTimestamps defines whether Prometheus preserves the timestamps when exposed by the target.

        :schema: PodMonitorSpecPodMetricsEndpoints#honorTimestamps
        '''
        result = self._values.get("honor_timestamps")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval at which Prometheus scrapes the metrics from the target.

        If empty, Prometheus uses the global scrape interval.

        :schema: PodMonitorSpecPodMetricsEndpoints#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def metric_relabelings(
        self,
    ) -> typing.Optional[typing.List["PodMonitorSpecPodMetricsEndpointsMetricRelabelings"]]:
        '''metricRelabelings defines the relabeling rules to apply to the samples before ingestion.

        :schema: PodMonitorSpecPodMetricsEndpoints#metricRelabelings
        '''
        result = self._values.get("metric_relabelings")
        return typing.cast(typing.Optional[typing.List["PodMonitorSpecPodMetricsEndpointsMetricRelabelings"]], result)

    @builtins.property
    def no_proxy(self) -> typing.Optional[builtins.str]:
        '''noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying.

        IP and domain names can
        contain port numbers.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: PodMonitorSpecPodMetricsEndpoints#noProxy
        '''
        result = self._values.get("no_proxy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def oauth2(self) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2"]:
        '''oauth2 defines the OAuth2 settings used by the client.

        It requires Prometheus >= 2.27.0.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``bearerTokenSecret``.

        :schema: PodMonitorSpecPodMetricsEndpoints#oauth2
        '''
        result = self._values.get("oauth2")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2"], result)

    @builtins.property
    def params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List[builtins.str]]]:
        '''params define optional HTTP URL parameters.

        :schema: PodMonitorSpecPodMetricsEndpoints#params
        '''
        result = self._values.get("params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List[builtins.str]]], result)

    @builtins.property
    def path(self) -> typing.Optional[builtins.str]:
        '''path defines the HTTP path from which to scrape for metrics.

        If empty, Prometheus uses the default value (e.g. ``/metrics``).

        :schema: PodMonitorSpecPodMetricsEndpoints#path
        '''
        result = self._values.get("path")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def port(self) -> typing.Optional[builtins.str]:
        '''port defines the ``Pod`` port name which exposes the endpoint.

        If the pod doesn't expose a port with the same name, it will result
        in no targets being discovered.

        If a ``Pod`` has multiple ``Port``s with the same name (which is not
        recommended), one target instance per unique port number will be
        generated.

        It takes precedence over the ``portNumber`` and ``targetPort`` fields.

        :schema: PodMonitorSpecPodMetricsEndpoints#port
        '''
        result = self._values.get("port")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def port_number(self) -> typing.Optional[jsii.Number]:
        '''portNumber defines the ``Pod`` port number which exposes the endpoint.

        The ``Pod`` must declare the specified ``Port`` in its spec or the
        target will be dropped by Prometheus.

        This cannot be used to enable scraping of an undeclared port.
        To scrape targets on a port which isn't exposed, you need to use
        relabeling to override the ``__address__`` label (but beware of
        duplicate targets if the ``Pod`` has other declared ports).

        In practice Prometheus will select targets for which the
        matches the target's __meta_kubernetes_pod_container_port_number.

        :schema: PodMonitorSpecPodMetricsEndpoints#portNumber
        '''
        result = self._values.get("port_number")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def proxy_connect_header(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List["PodMonitorSpecPodMetricsEndpointsProxyConnectHeader"]]]:
        '''proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: PodMonitorSpecPodMetricsEndpoints#proxyConnectHeader
        '''
        result = self._values.get("proxy_connect_header")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List["PodMonitorSpecPodMetricsEndpointsProxyConnectHeader"]]], result)

    @builtins.property
    def proxy_from_environment(self) -> typing.Optional[builtins.bool]:
        '''proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY).

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: PodMonitorSpecPodMetricsEndpoints#proxyFromEnvironment
        '''
        result = self._values.get("proxy_from_environment")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def proxy_url(self) -> typing.Optional[builtins.str]:
        '''proxyUrl defines the HTTP proxy server to use.

        :schema: PodMonitorSpecPodMetricsEndpoints#proxyUrl
        '''
        result = self._values.get("proxy_url")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def relabelings(
        self,
    ) -> typing.Optional[typing.List["PodMonitorSpecPodMetricsEndpointsRelabelings"]]:
        '''relabelings defines the relabeling rules to apply the target's metadata labels.

        The Operator automatically adds relabelings for a few standard Kubernetes fields.

        The original scrape job's name is available via the ``__tmp_prometheus_job_name`` label.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :schema: PodMonitorSpecPodMetricsEndpoints#relabelings
        '''
        result = self._values.get("relabelings")
        return typing.cast(typing.Optional[typing.List["PodMonitorSpecPodMetricsEndpointsRelabelings"]], result)

    @builtins.property
    def scheme(self) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsScheme"]:
        '''scheme defines the HTTP scheme to use for scraping.

        :schema: PodMonitorSpecPodMetricsEndpoints#scheme
        '''
        result = self._values.get("scheme")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsScheme"], result)

    @builtins.property
    def scrape_timeout(self) -> typing.Optional[builtins.str]:
        '''scrapeTimeout defines the timeout after which Prometheus considers the scrape to be failed.

        If empty, Prometheus uses the global scrape timeout unless it is less
        than the target's scrape interval value in which the latter is used.
        The value cannot be greater than the scrape interval otherwise the operator will reject the resource.

        :schema: PodMonitorSpecPodMetricsEndpoints#scrapeTimeout
        '''
        result = self._values.get("scrape_timeout")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def target_port(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTargetPort"]:
        '''targetPort defines the name or number of the target port of the ``Pod`` object behind the Service, the port must be specified with container port property.

        Deprecated: use 'port' or 'portNumber' instead.

        :schema: PodMonitorSpecPodMetricsEndpoints#targetPort
        '''
        result = self._values.get("target_port")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTargetPort"], result)

    @builtins.property
    def tls_config(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfig"]:
        '''tlsConfig defines the TLS configuration used by the client.

        :schema: PodMonitorSpecPodMetricsEndpoints#tlsConfig
        '''
        result = self._values.get("tls_config")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfig"], result)

    @builtins.property
    def track_timestamps_staleness(self) -> typing.Optional[builtins.bool]:
        '''trackTimestampsStaleness defines whether Prometheus tracks staleness of the metrics that have an explicit timestamp present in scraped data.

        Has no effect if ``honorTimestamps`` is false.

        It requires Prometheus >= v2.48.0.

        :schema: PodMonitorSpecPodMetricsEndpoints#trackTimestampsStaleness
        '''
        result = self._values.get("track_timestamps_staleness")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpoints(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsAuthorization",
    jsii_struct_bases=[],
    name_mapping={"credentials": "credentials", "type": "type"},
)
class PodMonitorSpecPodMetricsEndpointsAuthorization:
    def __init__(
        self,
        *,
        credentials: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials", typing.Dict[builtins.str, typing.Any]]] = None,
        type: typing.Optional[builtins.str] = None,
    ) -> None:
        '''authorization configures the Authorization header credentials used by the client.

        Cannot be set at the same time as ``basicAuth``, ``bearerTokenSecret`` or ``oauth2``.

        :param credentials: credentials defines a key of a Secret in the namespace that contains the credentials for authentication.
        :param type: type defines the authentication type. The value is case-insensitive. "Basic" is not a supported value. Default: "Bearer"

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorization
        '''
        if isinstance(credentials, dict):
            credentials = PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials(**credentials)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7541934ace74deacfcb5fb07dc6da0b6efd1f223899c7faee491eb5cb9eeccea)
            check_type(argname="argument credentials", value=credentials, expected_type=type_hints["credentials"])
            check_type(argname="argument type", value=type, expected_type=type_hints["type"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if credentials is not None:
            self._values["credentials"] = credentials
        if type is not None:
            self._values["type"] = type

    @builtins.property
    def credentials(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials"]:
        '''credentials defines a key of a Secret in the namespace that contains the credentials for authentication.

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorization#credentials
        '''
        result = self._values.get("credentials")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials"], result)

    @builtins.property
    def type(self) -> typing.Optional[builtins.str]:
        '''type defines the authentication type. The value is case-insensitive.

        "Basic" is not a supported value.

        Default: "Bearer"

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorization#type
        '''
        result = self._values.get("type")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsAuthorization(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''credentials defines a key of a Secret in the namespace that contains the credentials for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__34df952ebc96c1e16d5981758c0b9212249f9549412e281143059777abe12831)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsBasicAuth",
    jsii_struct_bases=[],
    name_mapping={"password": "password", "username": "username"},
)
class PodMonitorSpecPodMetricsEndpointsBasicAuth:
    def __init__(
        self,
        *,
        password: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsBasicAuthPassword", typing.Dict[builtins.str, typing.Any]]] = None,
        username: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsBasicAuthUsername", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''basicAuth defines the Basic Authentication credentials used by the client.

        Cannot be set at the same time as ``authorization``, ``bearerTokenSecret`` or ``oauth2``.

        :param password: password defines a key of a Secret containing the password for authentication.
        :param username: username defines a key of a Secret containing the username for authentication.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuth
        '''
        if isinstance(password, dict):
            password = PodMonitorSpecPodMetricsEndpointsBasicAuthPassword(**password)
        if isinstance(username, dict):
            username = PodMonitorSpecPodMetricsEndpointsBasicAuthUsername(**username)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__362a13518153c05ab8b3fb24c12c6fb329ad0775ca5128d4df1a576519632616)
            check_type(argname="argument password", value=password, expected_type=type_hints["password"])
            check_type(argname="argument username", value=username, expected_type=type_hints["username"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if password is not None:
            self._values["password"] = password
        if username is not None:
            self._values["username"] = username

    @builtins.property
    def password(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsBasicAuthPassword"]:
        '''password defines a key of a Secret containing the password for authentication.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuth#password
        '''
        result = self._values.get("password")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsBasicAuthPassword"], result)

    @builtins.property
    def username(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsBasicAuthUsername"]:
        '''username defines a key of a Secret containing the username for authentication.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuth#username
        '''
        result = self._values.get("username")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsBasicAuthUsername"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsBasicAuth(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsBasicAuthPassword",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsBasicAuthPassword:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''password defines a key of a Secret containing the password for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthPassword
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__b33bce29034022f21100bb1f03e0014772e9396364bb9e24998712256e71afba)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthPassword#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthPassword#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthPassword#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsBasicAuthPassword(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsBasicAuthUsername",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsBasicAuthUsername:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''username defines a key of a Secret containing the username for authentication.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthUsername
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4472b6666f25088c395d2ac7b42379f4fa5072c43cebaa434abccfde9d6c7186)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthUsername#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthUsername#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsBasicAuthUsername#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsBasicAuthUsername(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsBearerTokenSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsBearerTokenSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''bearerTokenSecret defines a key of a Secret containing the bearer token used by the client for authentication.

        The secret needs to be in the
        same namespace as the custom resource and readable by the Prometheus
        Operator.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``oauth2``.

        Deprecated: use ``authorization`` instead.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsBearerTokenSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__908d6bddecf909e416d37c4036afa9da7824c50c85d4bf861328476bd364a318)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsBearerTokenSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsBearerTokenSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsBearerTokenSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsBearerTokenSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsMetricRelabelings",
    jsii_struct_bases=[],
    name_mapping={
        "action": "action",
        "modulus": "modulus",
        "regex": "regex",
        "replacement": "replacement",
        "separator": "separator",
        "source_labels": "sourceLabels",
        "target_label": "targetLabel",
    },
)
class PodMonitorSpecPodMetricsEndpointsMetricRelabelings:
    def __init__(
        self,
        *,
        action: typing.Optional["PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction"] = None,
        modulus: typing.Optional[jsii.Number] = None,
        regex: typing.Optional[builtins.str] = None,
        replacement: typing.Optional[builtins.str] = None,
        separator: typing.Optional[builtins.str] = None,
        source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_label: typing.Optional[builtins.str] = None,
    ) -> None:
        '''RelabelConfig allows dynamic rewriting of the label set for targets, alerts, scraped samples and remote write samples.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :param action: action to perform based on the regex matching. ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0. ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0. Default: "Replace"
        :param modulus: modulus to take of the hash of the source label values. Only applicable when the action is ``HashMod``.
        :param regex: regex defines the regular expression against which the extracted value is matched.
        :param replacement: replacement value against which a Replace action is performed if the regular expression matches. Regex capture groups are available.
        :param separator: separator defines the string between concatenated SourceLabels.
        :param source_labels: sourceLabels defines the source labels select values from existing labels. Their content is concatenated using the configured Separator and matched against the configured regular expression.
        :param target_label: targetLabel defines the label to which the resulting string is written in a replacement. It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``, ``KeepEqual`` and ``DropEqual`` actions. Regex capture groups are available.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__adddcc64a5476027f48f79d9de7fa99760f28144f8f54e1fb07d8a8a9dbba5b2)
            check_type(argname="argument action", value=action, expected_type=type_hints["action"])
            check_type(argname="argument modulus", value=modulus, expected_type=type_hints["modulus"])
            check_type(argname="argument regex", value=regex, expected_type=type_hints["regex"])
            check_type(argname="argument replacement", value=replacement, expected_type=type_hints["replacement"])
            check_type(argname="argument separator", value=separator, expected_type=type_hints["separator"])
            check_type(argname="argument source_labels", value=source_labels, expected_type=type_hints["source_labels"])
            check_type(argname="argument target_label", value=target_label, expected_type=type_hints["target_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if action is not None:
            self._values["action"] = action
        if modulus is not None:
            self._values["modulus"] = modulus
        if regex is not None:
            self._values["regex"] = regex
        if replacement is not None:
            self._values["replacement"] = replacement
        if separator is not None:
            self._values["separator"] = separator
        if source_labels is not None:
            self._values["source_labels"] = source_labels
        if target_label is not None:
            self._values["target_label"] = target_label

    @builtins.property
    def action(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction"]:
        '''action to perform based on the regex matching.

        ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
        ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

        Default: "Replace"

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#action
        '''
        result = self._values.get("action")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction"], result)

    @builtins.property
    def modulus(self) -> typing.Optional[jsii.Number]:
        '''modulus to take of the hash of the source label values.

        Only applicable when the action is ``HashMod``.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#modulus
        '''
        result = self._values.get("modulus")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def regex(self) -> typing.Optional[builtins.str]:
        '''regex defines the regular expression against which the extracted value is matched.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#regex
        '''
        result = self._values.get("regex")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replacement(self) -> typing.Optional[builtins.str]:
        '''replacement value against which a Replace action is performed if the regular expression matches.

        Regex capture groups are available.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#replacement
        '''
        result = self._values.get("replacement")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def separator(self) -> typing.Optional[builtins.str]:
        '''separator defines the string between concatenated SourceLabels.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#separator
        '''
        result = self._values.get("separator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def source_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''sourceLabels defines the source labels select values from existing labels.

        Their content is
        concatenated using the configured Separator and matched against the
        configured regular expression.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#sourceLabels
        '''
        result = self._values.get("source_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_label(self) -> typing.Optional[builtins.str]:
        '''targetLabel defines the label to which the resulting string is written in a replacement.

        It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``,
        ``KeepEqual`` and ``DropEqual`` actions.

        Regex capture groups are available.

        :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelings#targetLabel
        '''
        result = self._values.get("target_label")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsMetricRelabelings(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction"
)
class PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction(enum.Enum):
    '''action to perform based on the regex matching.

    ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
    ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

    Default: "Replace"

    :schema: PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction
    '''

    REPLACE = "REPLACE"
    '''replace.'''
    KEEP = "KEEP"
    '''keep.'''
    DROP = "DROP"
    '''drop.'''
    HASHMOD = "HASHMOD"
    '''hashmod.'''
    LABELMAP = "LABELMAP"
    '''labelmap.'''
    LABELDROP = "LABELDROP"
    '''labeldrop.'''
    LABELKEEP = "LABELKEEP"
    '''labelkeep.'''
    LOWERCASE = "LOWERCASE"
    '''lowercase.'''
    UPPERCASE = "UPPERCASE"
    '''uppercase.'''
    KEEPEQUAL = "KEEPEQUAL"
    '''keepequal.'''
    DROPEQUAL = "DROPEQUAL"
    '''dropequal.'''


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2",
    jsii_struct_bases=[],
    name_mapping={
        "client_id": "clientId",
        "client_secret": "clientSecret",
        "token_url": "tokenUrl",
        "endpoint_params": "endpointParams",
        "no_proxy": "noProxy",
        "proxy_connect_header": "proxyConnectHeader",
        "proxy_from_environment": "proxyFromEnvironment",
        "proxy_url": "proxyUrl",
        "scopes": "scopes",
        "tls_config": "tlsConfig",
    },
)
class PodMonitorSpecPodMetricsEndpointsOauth2:
    def __init__(
        self,
        *,
        client_id: typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2ClientId", typing.Dict[builtins.str, typing.Any]],
        client_secret: typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret", typing.Dict[builtins.str, typing.Any]],
        token_url: builtins.str,
        endpoint_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        no_proxy: typing.Optional[builtins.str] = None,
        proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader", typing.Dict[builtins.str, typing.Any]]]]] = None,
        proxy_from_environment: typing.Optional[builtins.bool] = None,
        proxy_url: typing.Optional[builtins.str] = None,
        scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
        tls_config: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''oauth2 defines the OAuth2 settings used by the client.

        It requires Prometheus >= 2.27.0.

        Cannot be set at the same time as ``authorization``, ``basicAuth`` or ``bearerTokenSecret``.

        :param client_id: clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.
        :param client_secret: clientSecret defines a key of a Secret containing the OAuth2 client's secret.
        :param token_url: tokenUrl defines the URL to fetch the token from.
        :param endpoint_params: endpointParams configures the HTTP parameters to append to the token URL.
        :param no_proxy: noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying. IP and domain names can contain port numbers. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_connect_header: proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests. It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_from_environment: proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY). It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.
        :param proxy_url: proxyUrl defines the HTTP proxy server to use.
        :param scopes: scopes defines the OAuth2 scopes used for the token request.
        :param tls_config: tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server. It requires Prometheus >= v2.43.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2
        '''
        if isinstance(client_id, dict):
            client_id = PodMonitorSpecPodMetricsEndpointsOauth2ClientId(**client_id)
        if isinstance(client_secret, dict):
            client_secret = PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret(**client_secret)
        if isinstance(tls_config, dict):
            tls_config = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig(**tls_config)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e713f617bb3569c736298635d42e2a148b7ba944f6853037bb429384d513cd6f)
            check_type(argname="argument client_id", value=client_id, expected_type=type_hints["client_id"])
            check_type(argname="argument client_secret", value=client_secret, expected_type=type_hints["client_secret"])
            check_type(argname="argument token_url", value=token_url, expected_type=type_hints["token_url"])
            check_type(argname="argument endpoint_params", value=endpoint_params, expected_type=type_hints["endpoint_params"])
            check_type(argname="argument no_proxy", value=no_proxy, expected_type=type_hints["no_proxy"])
            check_type(argname="argument proxy_connect_header", value=proxy_connect_header, expected_type=type_hints["proxy_connect_header"])
            check_type(argname="argument proxy_from_environment", value=proxy_from_environment, expected_type=type_hints["proxy_from_environment"])
            check_type(argname="argument proxy_url", value=proxy_url, expected_type=type_hints["proxy_url"])
            check_type(argname="argument scopes", value=scopes, expected_type=type_hints["scopes"])
            check_type(argname="argument tls_config", value=tls_config, expected_type=type_hints["tls_config"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "client_id": client_id,
            "client_secret": client_secret,
            "token_url": token_url,
        }
        if endpoint_params is not None:
            self._values["endpoint_params"] = endpoint_params
        if no_proxy is not None:
            self._values["no_proxy"] = no_proxy
        if proxy_connect_header is not None:
            self._values["proxy_connect_header"] = proxy_connect_header
        if proxy_from_environment is not None:
            self._values["proxy_from_environment"] = proxy_from_environment
        if proxy_url is not None:
            self._values["proxy_url"] = proxy_url
        if scopes is not None:
            self._values["scopes"] = scopes
        if tls_config is not None:
            self._values["tls_config"] = tls_config

    @builtins.property
    def client_id(self) -> "PodMonitorSpecPodMetricsEndpointsOauth2ClientId":
        '''clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#clientId
        '''
        result = self._values.get("client_id")
        assert result is not None, "Required property 'client_id' is missing"
        return typing.cast("PodMonitorSpecPodMetricsEndpointsOauth2ClientId", result)

    @builtins.property
    def client_secret(self) -> "PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret":
        '''clientSecret defines a key of a Secret containing the OAuth2 client's secret.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#clientSecret
        '''
        result = self._values.get("client_secret")
        assert result is not None, "Required property 'client_secret' is missing"
        return typing.cast("PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret", result)

    @builtins.property
    def token_url(self) -> builtins.str:
        '''tokenUrl defines the URL to fetch the token from.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#tokenUrl
        '''
        result = self._values.get("token_url")
        assert result is not None, "Required property 'token_url' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def endpoint_params(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''endpointParams configures the HTTP parameters to append to the token URL.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#endpointParams
        '''
        result = self._values.get("endpoint_params")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def no_proxy(self) -> typing.Optional[builtins.str]:
        '''noProxy defines a comma-separated string that can contain IPs, CIDR notation, domain names that should be excluded from proxying.

        IP and domain names can
        contain port numbers.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#noProxy
        '''
        result = self._values.get("no_proxy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def proxy_connect_header(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, typing.List["PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader"]]]:
        '''proxyConnectHeader optionally specifies headers to send to proxies during CONNECT requests.

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#proxyConnectHeader
        '''
        result = self._values.get("proxy_connect_header")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, typing.List["PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader"]]], result)

    @builtins.property
    def proxy_from_environment(self) -> typing.Optional[builtins.bool]:
        '''proxyFromEnvironment defines whether to use the proxy configuration defined by environment variables (HTTP_PROXY, HTTPS_PROXY, and NO_PROXY).

        It requires Prometheus >= v2.43.0, Alertmanager >= v0.25.0 or Thanos >= v0.32.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#proxyFromEnvironment
        '''
        result = self._values.get("proxy_from_environment")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def proxy_url(self) -> typing.Optional[builtins.str]:
        '''proxyUrl defines the HTTP proxy server to use.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#proxyUrl
        '''
        result = self._values.get("proxy_url")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def scopes(self) -> typing.Optional[typing.List[builtins.str]]:
        '''scopes defines the OAuth2 scopes used for the token request.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#scopes
        '''
        result = self._values.get("scopes")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def tls_config(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig"]:
        '''tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server.

        It requires Prometheus >= v2.43.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2#tlsConfig
        '''
        result = self._values.get("tls_config")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2ClientId",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2ClientId:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''clientId defines a key of a Secret or ConfigMap containing the OAuth2 client's ID.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientId
        '''
        if isinstance(config_map, dict):
            config_map = PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__7d6d03034385318176d885f2151804ddd8e9daedd5000e02a521121657ae1791)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientId#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientId#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2ClientId(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__293bb72238293d342bad240fdaff88ffdd8883882fa8b5be2a4350eb26405013)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__83c6d0e7003a4e1028b666c4724059a21bff87db175a6ff9bfe8dbaa878d7ca6)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''clientSecret defines a key of a Secret containing the OAuth2 client's secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__905f6467c1ce0abb7ecd43a6034e8948c6db989086f932935c8aa6c423a02fab)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SecretKeySelector selects a key of a Secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__3ad60169bdb67e68810978f121750e50225477ff090775cfe48a08be45f656d5)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig",
    jsii_struct_bases=[],
    name_mapping={
        "ca": "ca",
        "cert": "cert",
        "insecure_skip_verify": "insecureSkipVerify",
        "key_secret": "keySecret",
        "max_version": "maxVersion",
        "min_version": "minVersion",
        "server_name": "serverName",
    },
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig:
    def __init__(
        self,
        *,
        ca: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa", typing.Dict[builtins.str, typing.Any]]] = None,
        cert: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert", typing.Dict[builtins.str, typing.Any]]] = None,
        insecure_skip_verify: typing.Optional[builtins.bool] = None,
        key_secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret", typing.Dict[builtins.str, typing.Any]]] = None,
        max_version: typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion"] = None,
        min_version: typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion"] = None,
        server_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''tlsConfig defines the TLS configuration to use when connecting to the OAuth2 server.

        It requires Prometheus >= v2.43.0.

        :param ca: ca defines the Certificate authority used when verifying server certificates.
        :param cert: cert defines the Client certificate to present when doing client-authentication.
        :param insecure_skip_verify: insecureSkipVerify defines how to disable target certificate validation.
        :param key_secret: keySecret defines the Secret containing the client key file for the targets.
        :param max_version: maxVersion defines the maximum acceptable TLS version. It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.
        :param min_version: minVersion defines the minimum acceptable TLS version. It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.
        :param server_name: serverName is used to verify the hostname for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig
        '''
        if isinstance(ca, dict):
            ca = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa(**ca)
        if isinstance(cert, dict):
            cert = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert(**cert)
        if isinstance(key_secret, dict):
            key_secret = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret(**key_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__cf610f4c0a3b03acdefd2f93812f262a6c1fd301f4908e977d7681af23b4bb77)
            check_type(argname="argument ca", value=ca, expected_type=type_hints["ca"])
            check_type(argname="argument cert", value=cert, expected_type=type_hints["cert"])
            check_type(argname="argument insecure_skip_verify", value=insecure_skip_verify, expected_type=type_hints["insecure_skip_verify"])
            check_type(argname="argument key_secret", value=key_secret, expected_type=type_hints["key_secret"])
            check_type(argname="argument max_version", value=max_version, expected_type=type_hints["max_version"])
            check_type(argname="argument min_version", value=min_version, expected_type=type_hints["min_version"])
            check_type(argname="argument server_name", value=server_name, expected_type=type_hints["server_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ca is not None:
            self._values["ca"] = ca
        if cert is not None:
            self._values["cert"] = cert
        if insecure_skip_verify is not None:
            self._values["insecure_skip_verify"] = insecure_skip_verify
        if key_secret is not None:
            self._values["key_secret"] = key_secret
        if max_version is not None:
            self._values["max_version"] = max_version
        if min_version is not None:
            self._values["min_version"] = min_version
        if server_name is not None:
            self._values["server_name"] = server_name

    @builtins.property
    def ca(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa"]:
        '''ca defines the Certificate authority used when verifying server certificates.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#ca
        '''
        result = self._values.get("ca")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa"], result)

    @builtins.property
    def cert(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert"]:
        '''cert defines the Client certificate to present when doing client-authentication.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#cert
        '''
        result = self._values.get("cert")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert"], result)

    @builtins.property
    def insecure_skip_verify(self) -> typing.Optional[builtins.bool]:
        '''insecureSkipVerify defines how to disable target certificate validation.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#insecureSkipVerify
        '''
        result = self._values.get("insecure_skip_verify")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def key_secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret"]:
        '''keySecret defines the Secret containing the client key file for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#keySecret
        '''
        result = self._values.get("key_secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret"], result)

    @builtins.property
    def max_version(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion"]:
        '''maxVersion defines the maximum acceptable TLS version.

        It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#maxVersion
        '''
        result = self._values.get("max_version")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion"], result)

    @builtins.property
    def min_version(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion"]:
        '''minVersion defines the minimum acceptable TLS version.

        It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#minVersion
        '''
        result = self._values.get("min_version")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion"], result)

    @builtins.property
    def server_name(self) -> typing.Optional[builtins.str]:
        '''serverName is used to verify the hostname for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig#serverName
        '''
        result = self._values.get("server_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ca defines the Certificate authority used when verifying server certificates.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa
        '''
        if isinstance(config_map, dict):
            config_map = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ddccdd62cd15d7a2469ea5d55ce015174e697b3e6f35809a58c8de96b97488be)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__63b50579d6cdb7de4c42bac9c45c9f78215b20641fe389efe81c471ffe123526)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__33b7dbd06cadd331ce6c12652fc18d6de4d47454f931214dbba8d07305f263e4)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''cert defines the Client certificate to present when doing client-authentication.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert
        '''
        if isinstance(config_map, dict):
            config_map = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__322fb4630f16b555842ac77b2b26e1f583fdffafd0e3691a68c83d845d381b5d)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__63ebc515fc2c5a12ba8e3d81d438baba9cbb3aabce4dbf8fd8786f290b7371e5)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__10e4796465bf2fe1e4a326cd3ba91a3ce004ce49c8d99d0877ad61c7d4003412)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''keySecret defines the Secret containing the client key file for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__27bc93b376fbddd1035ec86accf7a83bde8378338de161e24df87efe9c0278cd)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion"
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion(enum.Enum):
    '''maxVersion defines the maximum acceptable TLS version.

    It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

    :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion"
)
class PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion(enum.Enum):
    '''minVersion defines the minimum acceptable TLS version.

    It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

    :schema: PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsProxyConnectHeader",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsProxyConnectHeader:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''SecretKeySelector selects a key of a Secret.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsProxyConnectHeader
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__73929fba184dbf0d3fc6078f3b32bfe0391437f7395476f4a67e6e5b9cd61b22)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsProxyConnectHeader#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsProxyConnectHeader#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsProxyConnectHeader#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsProxyConnectHeader(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsRelabelings",
    jsii_struct_bases=[],
    name_mapping={
        "action": "action",
        "modulus": "modulus",
        "regex": "regex",
        "replacement": "replacement",
        "separator": "separator",
        "source_labels": "sourceLabels",
        "target_label": "targetLabel",
    },
)
class PodMonitorSpecPodMetricsEndpointsRelabelings:
    def __init__(
        self,
        *,
        action: typing.Optional["PodMonitorSpecPodMetricsEndpointsRelabelingsAction"] = None,
        modulus: typing.Optional[jsii.Number] = None,
        regex: typing.Optional[builtins.str] = None,
        replacement: typing.Optional[builtins.str] = None,
        separator: typing.Optional[builtins.str] = None,
        source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
        target_label: typing.Optional[builtins.str] = None,
    ) -> None:
        '''RelabelConfig allows dynamic rewriting of the label set for targets, alerts, scraped samples and remote write samples.

        More info: https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config

        :param action: action to perform based on the regex matching. ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0. ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0. Default: "Replace"
        :param modulus: modulus to take of the hash of the source label values. Only applicable when the action is ``HashMod``.
        :param regex: regex defines the regular expression against which the extracted value is matched.
        :param replacement: replacement value against which a Replace action is performed if the regular expression matches. Regex capture groups are available.
        :param separator: separator defines the string between concatenated SourceLabels.
        :param source_labels: sourceLabels defines the source labels select values from existing labels. Their content is concatenated using the configured Separator and matched against the configured regular expression.
        :param target_label: targetLabel defines the label to which the resulting string is written in a replacement. It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``, ``KeepEqual`` and ``DropEqual`` actions. Regex capture groups are available.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5d22e4fbffb95a8e54142914ab155b038100bc90a369a2f0566387e6b0c52bcd)
            check_type(argname="argument action", value=action, expected_type=type_hints["action"])
            check_type(argname="argument modulus", value=modulus, expected_type=type_hints["modulus"])
            check_type(argname="argument regex", value=regex, expected_type=type_hints["regex"])
            check_type(argname="argument replacement", value=replacement, expected_type=type_hints["replacement"])
            check_type(argname="argument separator", value=separator, expected_type=type_hints["separator"])
            check_type(argname="argument source_labels", value=source_labels, expected_type=type_hints["source_labels"])
            check_type(argname="argument target_label", value=target_label, expected_type=type_hints["target_label"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if action is not None:
            self._values["action"] = action
        if modulus is not None:
            self._values["modulus"] = modulus
        if regex is not None:
            self._values["regex"] = regex
        if replacement is not None:
            self._values["replacement"] = replacement
        if separator is not None:
            self._values["separator"] = separator
        if source_labels is not None:
            self._values["source_labels"] = source_labels
        if target_label is not None:
            self._values["target_label"] = target_label

    @builtins.property
    def action(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsRelabelingsAction"]:
        '''action to perform based on the regex matching.

        ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
        ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

        Default: "Replace"

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#action
        '''
        result = self._values.get("action")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsRelabelingsAction"], result)

    @builtins.property
    def modulus(self) -> typing.Optional[jsii.Number]:
        '''modulus to take of the hash of the source label values.

        Only applicable when the action is ``HashMod``.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#modulus
        '''
        result = self._values.get("modulus")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def regex(self) -> typing.Optional[builtins.str]:
        '''regex defines the regular expression against which the extracted value is matched.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#regex
        '''
        result = self._values.get("regex")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def replacement(self) -> typing.Optional[builtins.str]:
        '''replacement value against which a Replace action is performed if the regular expression matches.

        Regex capture groups are available.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#replacement
        '''
        result = self._values.get("replacement")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def separator(self) -> typing.Optional[builtins.str]:
        '''separator defines the string between concatenated SourceLabels.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#separator
        '''
        result = self._values.get("separator")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def source_labels(self) -> typing.Optional[typing.List[builtins.str]]:
        '''sourceLabels defines the source labels select values from existing labels.

        Their content is
        concatenated using the configured Separator and matched against the
        configured regular expression.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#sourceLabels
        '''
        result = self._values.get("source_labels")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    @builtins.property
    def target_label(self) -> typing.Optional[builtins.str]:
        '''targetLabel defines the label to which the resulting string is written in a replacement.

        It is mandatory for ``Replace``, ``HashMod``, ``Lowercase``, ``Uppercase``,
        ``KeepEqual`` and ``DropEqual`` actions.

        Regex capture groups are available.

        :schema: PodMonitorSpecPodMetricsEndpointsRelabelings#targetLabel
        '''
        result = self._values.get("target_label")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsRelabelings(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsRelabelingsAction"
)
class PodMonitorSpecPodMetricsEndpointsRelabelingsAction(enum.Enum):
    '''action to perform based on the regex matching.

    ``Uppercase`` and ``Lowercase`` actions require Prometheus >= v2.36.0.
    ``DropEqual`` and ``KeepEqual`` actions require Prometheus >= v2.41.0.

    Default: "Replace"

    :schema: PodMonitorSpecPodMetricsEndpointsRelabelingsAction
    '''

    REPLACE = "REPLACE"
    '''replace.'''
    KEEP = "KEEP"
    '''keep.'''
    DROP = "DROP"
    '''drop.'''
    HASHMOD = "HASHMOD"
    '''hashmod.'''
    LABELMAP = "LABELMAP"
    '''labelmap.'''
    LABELDROP = "LABELDROP"
    '''labeldrop.'''
    LABELKEEP = "LABELKEEP"
    '''labelkeep.'''
    LOWERCASE = "LOWERCASE"
    '''lowercase.'''
    UPPERCASE = "UPPERCASE"
    '''uppercase.'''
    KEEPEQUAL = "KEEPEQUAL"
    '''keepequal.'''
    DROPEQUAL = "DROPEQUAL"
    '''dropequal.'''


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsScheme"
)
class PodMonitorSpecPodMetricsEndpointsScheme(enum.Enum):
    '''scheme defines the HTTP scheme to use for scraping.

    :schema: PodMonitorSpecPodMetricsEndpointsScheme
    '''

    HTTP = "HTTP"
    '''http.'''
    HTTPS = "HTTPS"
    '''https.'''


class PodMonitorSpecPodMetricsEndpointsTargetPort(
    metaclass=jsii.JSIIMeta,
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTargetPort",
):
    '''targetPort defines the name or number of the target port of the ``Pod`` object behind the Service, the port must be specified with container port property.

    Deprecated: use 'port' or 'portNumber' instead.

    :schema: PodMonitorSpecPodMetricsEndpointsTargetPort
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(
        cls,
        value: jsii.Number,
    ) -> "PodMonitorSpecPodMetricsEndpointsTargetPort":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__c8e61e86c3144951cabb0ce6beaf1b3cd0377bec2c23530337e8e86c170f2975)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PodMonitorSpecPodMetricsEndpointsTargetPort", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(
        cls,
        value: builtins.str,
    ) -> "PodMonitorSpecPodMetricsEndpointsTargetPort":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__93979e2c47cc52f183826aff09bbf28fb8ce681a3581d966894f5fc105b1f6f8)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PodMonitorSpecPodMetricsEndpointsTargetPort", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfig",
    jsii_struct_bases=[],
    name_mapping={
        "ca": "ca",
        "cert": "cert",
        "insecure_skip_verify": "insecureSkipVerify",
        "key_secret": "keySecret",
        "max_version": "maxVersion",
        "min_version": "minVersion",
        "server_name": "serverName",
    },
)
class PodMonitorSpecPodMetricsEndpointsTlsConfig:
    def __init__(
        self,
        *,
        ca: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigCa", typing.Dict[builtins.str, typing.Any]]] = None,
        cert: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigCert", typing.Dict[builtins.str, typing.Any]]] = None,
        insecure_skip_verify: typing.Optional[builtins.bool] = None,
        key_secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret", typing.Dict[builtins.str, typing.Any]]] = None,
        max_version: typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion"] = None,
        min_version: typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion"] = None,
        server_name: typing.Optional[builtins.str] = None,
    ) -> None:
        '''tlsConfig defines the TLS configuration used by the client.

        :param ca: ca defines the Certificate authority used when verifying server certificates.
        :param cert: cert defines the Client certificate to present when doing client-authentication.
        :param insecure_skip_verify: insecureSkipVerify defines how to disable target certificate validation.
        :param key_secret: keySecret defines the Secret containing the client key file for the targets.
        :param max_version: maxVersion defines the maximum acceptable TLS version. It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.
        :param min_version: minVersion defines the minimum acceptable TLS version. It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.
        :param server_name: serverName is used to verify the hostname for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig
        '''
        if isinstance(ca, dict):
            ca = PodMonitorSpecPodMetricsEndpointsTlsConfigCa(**ca)
        if isinstance(cert, dict):
            cert = PodMonitorSpecPodMetricsEndpointsTlsConfigCert(**cert)
        if isinstance(key_secret, dict):
            key_secret = PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret(**key_secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a2864d28fec0c6789d9b166b64d320b6ff6f0e92ff28eaebb54dcc3997673228)
            check_type(argname="argument ca", value=ca, expected_type=type_hints["ca"])
            check_type(argname="argument cert", value=cert, expected_type=type_hints["cert"])
            check_type(argname="argument insecure_skip_verify", value=insecure_skip_verify, expected_type=type_hints["insecure_skip_verify"])
            check_type(argname="argument key_secret", value=key_secret, expected_type=type_hints["key_secret"])
            check_type(argname="argument max_version", value=max_version, expected_type=type_hints["max_version"])
            check_type(argname="argument min_version", value=min_version, expected_type=type_hints["min_version"])
            check_type(argname="argument server_name", value=server_name, expected_type=type_hints["server_name"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if ca is not None:
            self._values["ca"] = ca
        if cert is not None:
            self._values["cert"] = cert
        if insecure_skip_verify is not None:
            self._values["insecure_skip_verify"] = insecure_skip_verify
        if key_secret is not None:
            self._values["key_secret"] = key_secret
        if max_version is not None:
            self._values["max_version"] = max_version
        if min_version is not None:
            self._values["min_version"] = min_version
        if server_name is not None:
            self._values["server_name"] = server_name

    @builtins.property
    def ca(self) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCa"]:
        '''ca defines the Certificate authority used when verifying server certificates.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#ca
        '''
        result = self._values.get("ca")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCa"], result)

    @builtins.property
    def cert(self) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCert"]:
        '''cert defines the Client certificate to present when doing client-authentication.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#cert
        '''
        result = self._values.get("cert")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCert"], result)

    @builtins.property
    def insecure_skip_verify(self) -> typing.Optional[builtins.bool]:
        '''insecureSkipVerify defines how to disable target certificate validation.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#insecureSkipVerify
        '''
        result = self._values.get("insecure_skip_verify")
        return typing.cast(typing.Optional[builtins.bool], result)

    @builtins.property
    def key_secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret"]:
        '''keySecret defines the Secret containing the client key file for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#keySecret
        '''
        result = self._values.get("key_secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret"], result)

    @builtins.property
    def max_version(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion"]:
        '''maxVersion defines the maximum acceptable TLS version.

        It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#maxVersion
        '''
        result = self._values.get("max_version")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion"], result)

    @builtins.property
    def min_version(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion"]:
        '''minVersion defines the minimum acceptable TLS version.

        It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#minVersion
        '''
        result = self._values.get("min_version")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion"], result)

    @builtins.property
    def server_name(self) -> typing.Optional[builtins.str]:
        '''serverName is used to verify the hostname for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfig#serverName
        '''
        result = self._values.get("server_name")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfig(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigCa",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigCa:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''ca defines the Certificate authority used when verifying server certificates.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCa
        '''
        if isinstance(config_map, dict):
            config_map = PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2a8925bd0728fceb077cf93cadeab2fe3951c7c773432b1e2c1e8ac3099b43f4)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCa#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCa#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigCa(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a9ad43549ce3291731f4222a1477da9636e8e207266a157d12145968c85a0427)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__5bbe05796df0212182c8716a1d4110808bea077fff0bba0e5663380a717ff4bc)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigCert",
    jsii_struct_bases=[],
    name_mapping={"config_map": "configMap", "secret": "secret"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigCert:
    def __init__(
        self,
        *,
        config_map: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap", typing.Dict[builtins.str, typing.Any]]] = None,
        secret: typing.Optional[typing.Union["PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''cert defines the Client certificate to present when doing client-authentication.

        :param config_map: configMap defines the ConfigMap containing data to use for the targets.
        :param secret: secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCert
        '''
        if isinstance(config_map, dict):
            config_map = PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap(**config_map)
        if isinstance(secret, dict):
            secret = PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret(**secret)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ba43671c7de0eba436d9bdf2a84bc5c195116149702f69045dcca892a182c8ab)
            check_type(argname="argument config_map", value=config_map, expected_type=type_hints["config_map"])
            check_type(argname="argument secret", value=secret, expected_type=type_hints["secret"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if config_map is not None:
            self._values["config_map"] = config_map
        if secret is not None:
            self._values["secret"] = secret

    @builtins.property
    def config_map(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap"]:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCert#configMap
        '''
        result = self._values.get("config_map")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap"], result)

    @builtins.property
    def secret(
        self,
    ) -> typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret"]:
        '''secret defines the Secret containing data to use for the targets.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCert#secret
        '''
        result = self._values.get("secret")
        return typing.cast(typing.Optional["PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigCert(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''configMap defines the ConfigMap containing data to use for the targets.

        :param key: The key to select.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d482316b01cab03172b82b84721cd8d3799fea37f1924eadef4549738934aa29)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key to select.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the ConfigMap or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''secret defines the Secret containing data to use for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8545ebc11af851759a81734353dba46f31e09f5e6055b7263b2390449db5a5ac)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "name": "name", "optional": "optional"},
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret:
    def __init__(
        self,
        *,
        key: builtins.str,
        name: typing.Optional[builtins.str] = None,
        optional: typing.Optional[builtins.bool] = None,
    ) -> None:
        '''keySecret defines the Secret containing the client key file for the targets.

        :param key: The key of the secret to select from. Must be a valid secret key.
        :param name: Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names
        :param optional: Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d3ddc88ca9e14278c7b54e166f4b11ea7d0c19c05e5c4b69e0c353c0d47c8739)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument optional", value=optional, expected_type=type_hints["optional"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
        }
        if name is not None:
            self._values["name"] = name
        if optional is not None:
            self._values["optional"] = optional

    @builtins.property
    def key(self) -> builtins.str:
        '''The key of the secret to select from.

        Must be a valid secret key.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def name(self) -> typing.Optional[builtins.str]:
        '''Name of the referent.

        This field is effectively required, but due to backwards compatibility is
        allowed to be empty. Instances of this type with an empty value here are
        almost certainly wrong.
        More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret#name
        '''
        result = self._values.get("name")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def optional(self) -> typing.Optional[builtins.bool]:
        '''Specify whether the Secret or its key must be defined.

        :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret#optional
        '''
        result = self._values.get("optional")
        return typing.cast(typing.Optional[builtins.bool], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion"
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion(enum.Enum):
    '''maxVersion defines the maximum acceptable TLS version.

    It requires Prometheus >= v2.41.0 or Thanos >= v0.31.0.

    :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion"
)
class PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion(enum.Enum):
    '''minVersion defines the minimum acceptable TLS version.

    It requires Prometheus >= v2.35.0 or Thanos >= v0.28.0.

    :schema: PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion
    '''

    TLS10 = "TLS10"
    '''TLS10.'''
    TLS11 = "TLS11"
    '''TLS11.'''
    TLS12 = "TLS12"
    '''TLS12.'''
    TLS13 = "TLS13"
    '''TLS13.'''


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecScrapeProtocols"
)
class PodMonitorSpecScrapeProtocols(enum.Enum):
    '''ScrapeProtocol represents a protocol used by Prometheus for scraping metrics.

    Supported values are:

    - ``OpenMetricsText0.0.1``
    - ``OpenMetricsText1.0.0``
    - ``PrometheusProto``
    - ``PrometheusText0.0.4``
    - ``PrometheusText1.0.0``

    :schema: PodMonitorSpecScrapeProtocols
    '''

    PROMETHEUS_PROTO = "PROMETHEUS_PROTO"
    '''PrometheusProto.'''
    OPEN_METRICS_TEXT0_0_1 = "OPEN_METRICS_TEXT0_0_1"
    '''OpenMetricsText0.0.1.'''
    OPEN_METRICS_TEXT1_0_0 = "OPEN_METRICS_TEXT1_0_0"
    '''OpenMetricsText1.0.0.'''
    PROMETHEUS_TEXT0_0_4 = "PROMETHEUS_TEXT0_0_4"
    '''PrometheusText0.0.4.'''
    PROMETHEUS_TEXT1_0_0 = "PROMETHEUS_TEXT1_0_0"
    '''PrometheusText1.0.0.'''


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecSelector",
    jsii_struct_bases=[],
    name_mapping={
        "match_expressions": "matchExpressions",
        "match_labels": "matchLabels",
    },
)
class PodMonitorSpecSelector:
    def __init__(
        self,
        *,
        match_expressions: typing.Optional[typing.Sequence[typing.Union["PodMonitorSpecSelectorMatchExpressions", typing.Dict[builtins.str, typing.Any]]]] = None,
        match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    ) -> None:
        '''selector defines the label selector to select the Kubernetes ``Pod`` objects to scrape metrics from.

        :param match_expressions: matchExpressions is a list of label selector requirements. The requirements are ANDed.
        :param match_labels: matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: PodMonitorSpecSelector
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__2fcabc792f8f88e56029fa47632ceb06d531cd5aa18f7f95bda4d7a05914cd6c)
            check_type(argname="argument match_expressions", value=match_expressions, expected_type=type_hints["match_expressions"])
            check_type(argname="argument match_labels", value=match_labels, expected_type=type_hints["match_labels"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if match_expressions is not None:
            self._values["match_expressions"] = match_expressions
        if match_labels is not None:
            self._values["match_labels"] = match_labels

    @builtins.property
    def match_expressions(
        self,
    ) -> typing.Optional[typing.List["PodMonitorSpecSelectorMatchExpressions"]]:
        '''matchExpressions is a list of label selector requirements.

        The requirements are ANDed.

        :schema: PodMonitorSpecSelector#matchExpressions
        '''
        result = self._values.get("match_expressions")
        return typing.cast(typing.Optional[typing.List["PodMonitorSpecSelectorMatchExpressions"]], result)

    @builtins.property
    def match_labels(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''matchLabels is a map of {key,value} pairs.

        A single {key,value} in the matchLabels
        map is equivalent to an element of matchExpressions, whose key field is "key", the
        operator is "In", and the values array contains only "value". The requirements are ANDed.

        :schema: PodMonitorSpecSelector#matchLabels
        '''
        result = self._values.get("match_labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecSelector(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecSelectorMatchExpressions",
    jsii_struct_bases=[],
    name_mapping={"key": "key", "operator": "operator", "values": "values"},
)
class PodMonitorSpecSelectorMatchExpressions:
    def __init__(
        self,
        *,
        key: builtins.str,
        operator: builtins.str,
        values: typing.Optional[typing.Sequence[builtins.str]] = None,
    ) -> None:
        '''A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.

        :param key: key is the label key that the selector applies to.
        :param operator: operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.
        :param values: values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.

        :schema: PodMonitorSpecSelectorMatchExpressions
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__4fa24f6b70898f9f8f5878fbb67e0bf05b90eded3d82d6713f2bf970acf6951b)
            check_type(argname="argument key", value=key, expected_type=type_hints["key"])
            check_type(argname="argument operator", value=operator, expected_type=type_hints["operator"])
            check_type(argname="argument values", value=values, expected_type=type_hints["values"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "key": key,
            "operator": operator,
        }
        if values is not None:
            self._values["values"] = values

    @builtins.property
    def key(self) -> builtins.str:
        '''key is the label key that the selector applies to.

        :schema: PodMonitorSpecSelectorMatchExpressions#key
        '''
        result = self._values.get("key")
        assert result is not None, "Required property 'key' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def operator(self) -> builtins.str:
        '''operator represents a key's relationship to a set of values.

        Valid operators are In, NotIn, Exists and DoesNotExist.

        :schema: PodMonitorSpecSelectorMatchExpressions#operator
        '''
        result = self._values.get("operator")
        assert result is not None, "Required property 'operator' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def values(self) -> typing.Optional[typing.List[builtins.str]]:
        '''values is an array of string values.

        If the operator is In or NotIn,
        the values array must be non-empty. If the operator is Exists or DoesNotExist,
        the values array must be empty. This array is replaced during a strategic
        merge patch.

        :schema: PodMonitorSpecSelectorMatchExpressions#values
        '''
        result = self._values.get("values")
        return typing.cast(typing.Optional[typing.List[builtins.str]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PodMonitorSpecSelectorMatchExpressions(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.enum(
    jsii_type="nld_podmonitor_comcoreosmonitoring.PodMonitorSpecSelectorMechanism"
)
class PodMonitorSpecSelectorMechanism(enum.Enum):
    '''selectorMechanism defines the mechanism used to select the endpoints to scrape.

    By default, the selection process relies on relabel configurations to filter the discovered targets.
    Alternatively, you can opt in for role selectors, which may offer better efficiency in large clusters.
    Which strategy is best for your use case needs to be carefully evaluated.

    It requires Prometheus >= v2.17.0.

    :schema: PodMonitorSpecSelectorMechanism
    '''

    RELABEL_CONFIG = "RELABEL_CONFIG"
    '''RelabelConfig.'''
    ROLE_SELECTOR = "ROLE_SELECTOR"
    '''RoleSelector.'''


__all__ = [
    "PodMonitor",
    "PodMonitorProps",
    "PodMonitorSpec",
    "PodMonitorSpecAttachMetadata",
    "PodMonitorSpecFallbackScrapeProtocol",
    "PodMonitorSpecNamespaceSelector",
    "PodMonitorSpecNativeHistogramMinBucketFactor",
    "PodMonitorSpecPodMetricsEndpoints",
    "PodMonitorSpecPodMetricsEndpointsAuthorization",
    "PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials",
    "PodMonitorSpecPodMetricsEndpointsBasicAuth",
    "PodMonitorSpecPodMetricsEndpointsBasicAuthPassword",
    "PodMonitorSpecPodMetricsEndpointsBasicAuthUsername",
    "PodMonitorSpecPodMetricsEndpointsBearerTokenSecret",
    "PodMonitorSpecPodMetricsEndpointsMetricRelabelings",
    "PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction",
    "PodMonitorSpecPodMetricsEndpointsOauth2",
    "PodMonitorSpecPodMetricsEndpointsOauth2ClientId",
    "PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap",
    "PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret",
    "PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret",
    "PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion",
    "PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion",
    "PodMonitorSpecPodMetricsEndpointsProxyConnectHeader",
    "PodMonitorSpecPodMetricsEndpointsRelabelings",
    "PodMonitorSpecPodMetricsEndpointsRelabelingsAction",
    "PodMonitorSpecPodMetricsEndpointsScheme",
    "PodMonitorSpecPodMetricsEndpointsTargetPort",
    "PodMonitorSpecPodMetricsEndpointsTlsConfig",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigCa",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigCert",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion",
    "PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion",
    "PodMonitorSpecScrapeProtocols",
    "PodMonitorSpecSelector",
    "PodMonitorSpecSelectorMatchExpressions",
    "PodMonitorSpecSelectorMechanism",
]

publication.publish()

def _typecheckingstub__06ac9addec6d56e24ca86572c4d8e5adb1b4e90b891311d0e9756c34058e2210(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[PodMonitorSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e7def5625bf649e51498d165a8b7f56ee24c440dc8dabcb9b80060615c6e9c0c(
    *,
    spec: typing.Union[PodMonitorSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__56e6c39655af5a50315d0ca393864bb146b2be8cdfa9fea6144d56dcb40aca32(
    *,
    selector: typing.Union[PodMonitorSpecSelector, typing.Dict[builtins.str, typing.Any]],
    attach_metadata: typing.Optional[typing.Union[PodMonitorSpecAttachMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
    body_size_limit: typing.Optional[builtins.str] = None,
    convert_classic_histograms_to_nhcb: typing.Optional[builtins.bool] = None,
    fallback_scrape_protocol: typing.Optional[PodMonitorSpecFallbackScrapeProtocol] = None,
    job_label: typing.Optional[builtins.str] = None,
    keep_dropped_targets: typing.Optional[jsii.Number] = None,
    label_limit: typing.Optional[jsii.Number] = None,
    label_name_length_limit: typing.Optional[jsii.Number] = None,
    label_value_length_limit: typing.Optional[jsii.Number] = None,
    namespace_selector: typing.Optional[typing.Union[PodMonitorSpecNamespaceSelector, typing.Dict[builtins.str, typing.Any]]] = None,
    native_histogram_bucket_limit: typing.Optional[jsii.Number] = None,
    native_histogram_min_bucket_factor: typing.Optional[PodMonitorSpecNativeHistogramMinBucketFactor] = None,
    pod_metrics_endpoints: typing.Optional[typing.Sequence[typing.Union[PodMonitorSpecPodMetricsEndpoints, typing.Dict[builtins.str, typing.Any]]]] = None,
    pod_target_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    sample_limit: typing.Optional[jsii.Number] = None,
    scrape_class: typing.Optional[builtins.str] = None,
    scrape_classic_histograms: typing.Optional[builtins.bool] = None,
    scrape_native_histograms: typing.Optional[builtins.bool] = None,
    scrape_protocols: typing.Optional[typing.Sequence[PodMonitorSpecScrapeProtocols]] = None,
    selector_mechanism: typing.Optional[PodMonitorSpecSelectorMechanism] = None,
    target_limit: typing.Optional[jsii.Number] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5c76cd61c4e9897ade3a66b2507b799e8bbde824d132c2309ada1674e1ec1b88(
    *,
    node: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a602b2379fba40ecb24e39e6a0376c5b1947c6f583b350cb91326c95b6da22a4(
    *,
    any: typing.Optional[builtins.bool] = None,
    match_names: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__f4bf03826c5fdc12e837bb51d9cfc9de55e2b0967ba6cbc09f3d441134bd3c5a(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__65f096d93bef845e7d0f2947a17a8209c119d4334c1be0d1f244e99cefe17bfc(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2db91519206523057c65f283447de7c24320f36c98c8269334cd8c4fdc9f1745(
    *,
    authorization: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsAuthorization, typing.Dict[builtins.str, typing.Any]]] = None,
    basic_auth: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsBasicAuth, typing.Dict[builtins.str, typing.Any]]] = None,
    bearer_token_secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsBearerTokenSecret, typing.Dict[builtins.str, typing.Any]]] = None,
    enable_http2: typing.Optional[builtins.bool] = None,
    filter_running: typing.Optional[builtins.bool] = None,
    follow_redirects: typing.Optional[builtins.bool] = None,
    honor_labels: typing.Optional[builtins.bool] = None,
    honor_timestamps: typing.Optional[builtins.bool] = None,
    interval: typing.Optional[builtins.str] = None,
    metric_relabelings: typing.Optional[typing.Sequence[typing.Union[PodMonitorSpecPodMetricsEndpointsMetricRelabelings, typing.Dict[builtins.str, typing.Any]]]] = None,
    no_proxy: typing.Optional[builtins.str] = None,
    oauth2: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2, typing.Dict[builtins.str, typing.Any]]] = None,
    params: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[builtins.str]]] = None,
    path: typing.Optional[builtins.str] = None,
    port: typing.Optional[builtins.str] = None,
    port_number: typing.Optional[jsii.Number] = None,
    proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union[PodMonitorSpecPodMetricsEndpointsProxyConnectHeader, typing.Dict[builtins.str, typing.Any]]]]] = None,
    proxy_from_environment: typing.Optional[builtins.bool] = None,
    proxy_url: typing.Optional[builtins.str] = None,
    relabelings: typing.Optional[typing.Sequence[typing.Union[PodMonitorSpecPodMetricsEndpointsRelabelings, typing.Dict[builtins.str, typing.Any]]]] = None,
    scheme: typing.Optional[PodMonitorSpecPodMetricsEndpointsScheme] = None,
    scrape_timeout: typing.Optional[builtins.str] = None,
    target_port: typing.Optional[PodMonitorSpecPodMetricsEndpointsTargetPort] = None,
    tls_config: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfig, typing.Dict[builtins.str, typing.Any]]] = None,
    track_timestamps_staleness: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7541934ace74deacfcb5fb07dc6da0b6efd1f223899c7faee491eb5cb9eeccea(
    *,
    credentials: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsAuthorizationCredentials, typing.Dict[builtins.str, typing.Any]]] = None,
    type: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__34df952ebc96c1e16d5981758c0b9212249f9549412e281143059777abe12831(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__362a13518153c05ab8b3fb24c12c6fb329ad0775ca5128d4df1a576519632616(
    *,
    password: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsBasicAuthPassword, typing.Dict[builtins.str, typing.Any]]] = None,
    username: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsBasicAuthUsername, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__b33bce29034022f21100bb1f03e0014772e9396364bb9e24998712256e71afba(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__4472b6666f25088c395d2ac7b42379f4fa5072c43cebaa434abccfde9d6c7186(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__908d6bddecf909e416d37c4036afa9da7824c50c85d4bf861328476bd364a318(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__adddcc64a5476027f48f79d9de7fa99760f28144f8f54e1fb07d8a8a9dbba5b2(
    *,
    action: typing.Optional[PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction] = None,
    modulus: typing.Optional[jsii.Number] = None,
    regex: typing.Optional[builtins.str] = None,
    replacement: typing.Optional[builtins.str] = None,
    separator: typing.Optional[builtins.str] = None,
    source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_label: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e713f617bb3569c736298635d42e2a148b7ba944f6853037bb429384d513cd6f(
    *,
    client_id: typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2ClientId, typing.Dict[builtins.str, typing.Any]],
    client_secret: typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2ClientSecret, typing.Dict[builtins.str, typing.Any]],
    token_url: builtins.str,
    endpoint_params: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    no_proxy: typing.Optional[builtins.str] = None,
    proxy_connect_header: typing.Optional[typing.Mapping[builtins.str, typing.Sequence[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2ProxyConnectHeader, typing.Dict[builtins.str, typing.Any]]]]] = None,
    proxy_from_environment: typing.Optional[builtins.bool] = None,
    proxy_url: typing.Optional[builtins.str] = None,
    scopes: typing.Optional[typing.Sequence[builtins.str]] = None,
    tls_config: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfig, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__7d6d03034385318176d885f2151804ddd8e9daedd5000e02a521121657ae1791(
    *,
    config_map: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2ClientIdConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2ClientIdSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__293bb72238293d342bad240fdaff88ffdd8883882fa8b5be2a4350eb26405013(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__83c6d0e7003a4e1028b666c4724059a21bff87db175a6ff9bfe8dbaa878d7ca6(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__905f6467c1ce0abb7ecd43a6034e8948c6db989086f932935c8aa6c423a02fab(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__3ad60169bdb67e68810978f121750e50225477ff090775cfe48a08be45f656d5(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__cf610f4c0a3b03acdefd2f93812f262a6c1fd301f4908e977d7681af23b4bb77(
    *,
    ca: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCa, typing.Dict[builtins.str, typing.Any]]] = None,
    cert: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCert, typing.Dict[builtins.str, typing.Any]]] = None,
    insecure_skip_verify: typing.Optional[builtins.bool] = None,
    key_secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigKeySecret, typing.Dict[builtins.str, typing.Any]]] = None,
    max_version: typing.Optional[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMaxVersion] = None,
    min_version: typing.Optional[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigMinVersion] = None,
    server_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ddccdd62cd15d7a2469ea5d55ce015174e697b3e6f35809a58c8de96b97488be(
    *,
    config_map: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCaSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__63b50579d6cdb7de4c42bac9c45c9f78215b20641fe389efe81c471ffe123526(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__33b7dbd06cadd331ce6c12652fc18d6de4d47454f931214dbba8d07305f263e4(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__322fb4630f16b555842ac77b2b26e1f583fdffafd0e3691a68c83d845d381b5d(
    *,
    config_map: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsOauth2TlsConfigCertSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__63ebc515fc2c5a12ba8e3d81d438baba9cbb3aabce4dbf8fd8786f290b7371e5(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__10e4796465bf2fe1e4a326cd3ba91a3ce004ce49c8d99d0877ad61c7d4003412(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__27bc93b376fbddd1035ec86accf7a83bde8378338de161e24df87efe9c0278cd(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__73929fba184dbf0d3fc6078f3b32bfe0391437f7395476f4a67e6e5b9cd61b22(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5d22e4fbffb95a8e54142914ab155b038100bc90a369a2f0566387e6b0c52bcd(
    *,
    action: typing.Optional[PodMonitorSpecPodMetricsEndpointsRelabelingsAction] = None,
    modulus: typing.Optional[jsii.Number] = None,
    regex: typing.Optional[builtins.str] = None,
    replacement: typing.Optional[builtins.str] = None,
    separator: typing.Optional[builtins.str] = None,
    source_labels: typing.Optional[typing.Sequence[builtins.str]] = None,
    target_label: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__c8e61e86c3144951cabb0ce6beaf1b3cd0377bec2c23530337e8e86c170f2975(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__93979e2c47cc52f183826aff09bbf28fb8ce681a3581d966894f5fc105b1f6f8(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a2864d28fec0c6789d9b166b64d320b6ff6f0e92ff28eaebb54dcc3997673228(
    *,
    ca: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigCa, typing.Dict[builtins.str, typing.Any]]] = None,
    cert: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigCert, typing.Dict[builtins.str, typing.Any]]] = None,
    insecure_skip_verify: typing.Optional[builtins.bool] = None,
    key_secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigKeySecret, typing.Dict[builtins.str, typing.Any]]] = None,
    max_version: typing.Optional[PodMonitorSpecPodMetricsEndpointsTlsConfigMaxVersion] = None,
    min_version: typing.Optional[PodMonitorSpecPodMetricsEndpointsTlsConfigMinVersion] = None,
    server_name: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2a8925bd0728fceb077cf93cadeab2fe3951c7c773432b1e2c1e8ac3099b43f4(
    *,
    config_map: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigCaConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigCaSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a9ad43549ce3291731f4222a1477da9636e8e207266a157d12145968c85a0427(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__5bbe05796df0212182c8716a1d4110808bea077fff0bba0e5663380a717ff4bc(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ba43671c7de0eba436d9bdf2a84bc5c195116149702f69045dcca892a182c8ab(
    *,
    config_map: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigCertConfigMap, typing.Dict[builtins.str, typing.Any]]] = None,
    secret: typing.Optional[typing.Union[PodMonitorSpecPodMetricsEndpointsTlsConfigCertSecret, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d482316b01cab03172b82b84721cd8d3799fea37f1924eadef4549738934aa29(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8545ebc11af851759a81734353dba46f31e09f5e6055b7263b2390449db5a5ac(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d3ddc88ca9e14278c7b54e166f4b11ea7d0c19c05e5c4b69e0c353c0d47c8739(
    *,
    key: builtins.str,
    name: typing.Optional[builtins.str] = None,
    optional: typing.Optional[builtins.bool] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__2fcabc792f8f88e56029fa47632ceb06d531cd5aa18f7f95bda4d7a05914cd6c(
    *,
    match_expressions: typing.Optional[typing.Sequence[typing.Union[PodMonitorSpecSelectorMatchExpressions, typing.Dict[builtins.str, typing.Any]]]] = None,
    match_labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__4fa24f6b70898f9f8f5878fbb67e0bf05b90eded3d82d6713f2bf970acf6951b(
    *,
    key: builtins.str,
    operator: builtins.str,
    values: typing.Optional[typing.Sequence[builtins.str]] = None,
) -> None:
    """Type checking stubs"""
    pass
