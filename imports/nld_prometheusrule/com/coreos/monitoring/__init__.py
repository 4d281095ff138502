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


class PrometheusRule(
    _cdk8s_d3d9af27.ApiObject,
    metaclass=jsii.JSIIMeta,
    jsii_type="nld_prometheusrule_comcoreosmonitoring.PrometheusRule",
):
    '''The ``PrometheusRule`` custom resource definition (CRD) defines `alerting <https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/>`_ and `recording <https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/>`_ rules to be evaluated by ``Prometheus`` or ``ThanosRuler`` objects.

    ``Prometheus`` and ``ThanosRuler`` objects select ``PrometheusRule`` objects using label and namespace selectors.

    :schema: PrometheusRule
    '''

    def __init__(
        self,
        scope: "_constructs_77d1e7e8.Construct",
        id: builtins.str,
        *,
        spec: typing.Union["PrometheusRuleSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''Defines a "PrometheusRule" API object.

        :param scope: the scope in which to define this object.
        :param id: a scope-local name for the object.
        :param spec: spec defines the specification of desired alerting rule definitions for Prometheus.
        :param metadata: 
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__56e3f5acc4b8da6e159a222dd5cfca7a1d2659fcb8a1cd63358ba2f2a28b840d)
            check_type(argname="argument scope", value=scope, expected_type=type_hints["scope"])
            check_type(argname="argument id", value=id, expected_type=type_hints["id"])
        props = PrometheusRuleProps(spec=spec, metadata=metadata)

        jsii.create(self.__class__, self, [scope, id, props])

    @jsii.member(jsii_name="manifest")
    @builtins.classmethod
    def manifest(
        cls,
        *,
        spec: typing.Union["PrometheusRuleSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> typing.Any:
        '''Renders a Kubernetes manifest for "PrometheusRule".

        This can be used to inline resource manifests inside other objects (e.g. as templates).

        :param spec: spec defines the specification of desired alerting rule definitions for Prometheus.
        :param metadata: 
        '''
        props = PrometheusRuleProps(spec=spec, metadata=metadata)

        return typing.cast(typing.Any, jsii.sinvoke(cls, "manifest", [props]))

    @jsii.member(jsii_name="toJson")
    def to_json(self) -> typing.Any:
        '''Renders the object to Kubernetes JSON.'''
        return typing.cast(typing.Any, jsii.invoke(self, "toJson", []))

    @jsii.python.classproperty
    @jsii.member(jsii_name="GVK")
    def GVK(cls) -> "_cdk8s_d3d9af27.GroupVersionKind":
        '''Returns the apiVersion and kind for "PrometheusRule".'''
        return typing.cast("_cdk8s_d3d9af27.GroupVersionKind", jsii.sget(cls, "GVK"))


@jsii.data_type(
    jsii_type="nld_prometheusrule_comcoreosmonitoring.PrometheusRuleProps",
    jsii_struct_bases=[],
    name_mapping={"spec": "spec", "metadata": "metadata"},
)
class PrometheusRuleProps:
    def __init__(
        self,
        *,
        spec: typing.Union["PrometheusRuleSpec", typing.Dict[builtins.str, typing.Any]],
        metadata: typing.Optional[typing.Union["_cdk8s_d3d9af27.ApiObjectMetadata", typing.Dict[builtins.str, typing.Any]]] = None,
    ) -> None:
        '''The ``PrometheusRule`` custom resource definition (CRD) defines `alerting <https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/>`_ and `recording <https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/>`_ rules to be evaluated by ``Prometheus`` or ``ThanosRuler`` objects.

        ``Prometheus`` and ``ThanosRuler`` objects select ``PrometheusRule`` objects using label and namespace selectors.

        :param spec: spec defines the specification of desired alerting rule definitions for Prometheus.
        :param metadata: 

        :schema: PrometheusRule
        '''
        if isinstance(spec, dict):
            spec = PrometheusRuleSpec(**spec)
        if isinstance(metadata, dict):
            metadata = _cdk8s_d3d9af27.ApiObjectMetadata(**metadata)
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__50eaf80107d2b0cc898c76c2509a5c1ec57cb19287c985d75a44d66c8a32a449)
            check_type(argname="argument spec", value=spec, expected_type=type_hints["spec"])
            check_type(argname="argument metadata", value=metadata, expected_type=type_hints["metadata"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "spec": spec,
        }
        if metadata is not None:
            self._values["metadata"] = metadata

    @builtins.property
    def spec(self) -> "PrometheusRuleSpec":
        '''spec defines the specification of desired alerting rule definitions for Prometheus.

        :schema: PrometheusRule#spec
        '''
        result = self._values.get("spec")
        assert result is not None, "Required property 'spec' is missing"
        return typing.cast("PrometheusRuleSpec", result)

    @builtins.property
    def metadata(self) -> typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"]:
        '''
        :schema: PrometheusRule#metadata
        '''
        result = self._values.get("metadata")
        return typing.cast(typing.Optional["_cdk8s_d3d9af27.ApiObjectMetadata"], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleProps(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_prometheusrule_comcoreosmonitoring.PrometheusRuleSpec",
    jsii_struct_bases=[],
    name_mapping={"groups": "groups"},
)
class PrometheusRuleSpec:
    def __init__(
        self,
        *,
        groups: typing.Optional[typing.Sequence[typing.Union["PrometheusRuleSpecGroups", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''spec defines the specification of desired alerting rule definitions for Prometheus.

        :param groups: groups defines the content of Prometheus rule file.

        :schema: PrometheusRuleSpec
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__ad10219a49d43ebbc89e375185321d20989ca8c8253b625280b9da856944ce06)
            check_type(argname="argument groups", value=groups, expected_type=type_hints["groups"])
        self._values: typing.Dict[builtins.str, typing.Any] = {}
        if groups is not None:
            self._values["groups"] = groups

    @builtins.property
    def groups(self) -> typing.Optional[typing.List["PrometheusRuleSpecGroups"]]:
        '''groups defines the content of Prometheus rule file.

        :schema: PrometheusRuleSpec#groups
        '''
        result = self._values.get("groups")
        return typing.cast(typing.Optional[typing.List["PrometheusRuleSpecGroups"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleSpec(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_prometheusrule_comcoreosmonitoring.PrometheusRuleSpecGroups",
    jsii_struct_bases=[],
    name_mapping={
        "name": "name",
        "interval": "interval",
        "labels": "labels",
        "limit": "limit",
        "partial_response_strategy": "partialResponseStrategy",
        "query_offset": "queryOffset",
        "rules": "rules",
    },
)
class PrometheusRuleSpecGroups:
    def __init__(
        self,
        *,
        name: builtins.str,
        interval: typing.Optional[builtins.str] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        limit: typing.Optional[jsii.Number] = None,
        partial_response_strategy: typing.Optional[builtins.str] = None,
        query_offset: typing.Optional[builtins.str] = None,
        rules: typing.Optional[typing.Sequence[typing.Union["PrometheusRuleSpecGroupsRules", typing.Dict[builtins.str, typing.Any]]]] = None,
    ) -> None:
        '''RuleGroup is a list of sequentially evaluated recording and alerting rules.

        :param name: name defines the name of the rule group.
        :param interval: interval defines how often rules in the group are evaluated.
        :param labels: labels define the labels to add or overwrite before storing the result for its rules. The labels defined at the rule level take precedence. It requires Prometheus >= 3.0.0. The field is ignored for Thanos Ruler.
        :param limit: limit defines the number of alerts an alerting rule and series a recording rule can produce. Limit is supported starting with Prometheus >= 2.31 and Thanos Ruler >= 0.24.
        :param partial_response_strategy: partial_response_strategy is only used by ThanosRuler and will be ignored by Prometheus instances. More info: https://github.com/thanos-io/thanos/blob/main/docs/components/rule.md#partial-response
        :param query_offset: query_offset defines the offset the rule evaluation timestamp of this particular group by the specified duration into the past. It requires Prometheus >= v2.53.0. It is not supported for ThanosRuler.
        :param rules: rules defines the list of alerting and recording rules.

        :schema: PrometheusRuleSpecGroups
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__8390fb3f1fadf65a6aab84660db6fa387c592c04357d8cee1f08c134a64dcb61)
            check_type(argname="argument name", value=name, expected_type=type_hints["name"])
            check_type(argname="argument interval", value=interval, expected_type=type_hints["interval"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument limit", value=limit, expected_type=type_hints["limit"])
            check_type(argname="argument partial_response_strategy", value=partial_response_strategy, expected_type=type_hints["partial_response_strategy"])
            check_type(argname="argument query_offset", value=query_offset, expected_type=type_hints["query_offset"])
            check_type(argname="argument rules", value=rules, expected_type=type_hints["rules"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "name": name,
        }
        if interval is not None:
            self._values["interval"] = interval
        if labels is not None:
            self._values["labels"] = labels
        if limit is not None:
            self._values["limit"] = limit
        if partial_response_strategy is not None:
            self._values["partial_response_strategy"] = partial_response_strategy
        if query_offset is not None:
            self._values["query_offset"] = query_offset
        if rules is not None:
            self._values["rules"] = rules

    @builtins.property
    def name(self) -> builtins.str:
        '''name defines the name of the rule group.

        :schema: PrometheusRuleSpecGroups#name
        '''
        result = self._values.get("name")
        assert result is not None, "Required property 'name' is missing"
        return typing.cast(builtins.str, result)

    @builtins.property
    def interval(self) -> typing.Optional[builtins.str]:
        '''interval defines how often rules in the group are evaluated.

        :schema: PrometheusRuleSpecGroups#interval
        '''
        result = self._values.get("interval")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels define the labels to add or overwrite before storing the result for its rules.

        The labels defined at the rule level take precedence.

        It requires Prometheus >= 3.0.0.
        The field is ignored for Thanos Ruler.

        :schema: PrometheusRuleSpecGroups#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def limit(self) -> typing.Optional[jsii.Number]:
        '''limit defines the number of alerts an alerting rule and series a recording rule can produce.

        Limit is supported starting with Prometheus >= 2.31 and Thanos Ruler >= 0.24.

        :schema: PrometheusRuleSpecGroups#limit
        '''
        result = self._values.get("limit")
        return typing.cast(typing.Optional[jsii.Number], result)

    @builtins.property
    def partial_response_strategy(self) -> typing.Optional[builtins.str]:
        '''partial_response_strategy is only used by ThanosRuler and will be ignored by Prometheus instances.

        More info: https://github.com/thanos-io/thanos/blob/main/docs/components/rule.md#partial-response

        :schema: PrometheusRuleSpecGroups#partial_response_strategy
        '''
        result = self._values.get("partial_response_strategy")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def query_offset(self) -> typing.Optional[builtins.str]:
        '''query_offset defines the offset the rule evaluation timestamp of this particular group by the specified duration into the past.

        It requires Prometheus >= v2.53.0.
        It is not supported for ThanosRuler.

        :schema: PrometheusRuleSpecGroups#query_offset
        '''
        result = self._values.get("query_offset")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def rules(self) -> typing.Optional[typing.List["PrometheusRuleSpecGroupsRules"]]:
        '''rules defines the list of alerting and recording rules.

        :schema: PrometheusRuleSpecGroups#rules
        '''
        result = self._values.get("rules")
        return typing.cast(typing.Optional[typing.List["PrometheusRuleSpecGroupsRules"]], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleSpecGroups(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


@jsii.data_type(
    jsii_type="nld_prometheusrule_comcoreosmonitoring.PrometheusRuleSpecGroupsRules",
    jsii_struct_bases=[],
    name_mapping={
        "expr": "expr",
        "alert": "alert",
        "annotations": "annotations",
        "for_": "for",
        "keep_firing_for": "keepFiringFor",
        "labels": "labels",
        "record": "record",
    },
)
class PrometheusRuleSpecGroupsRules:
    def __init__(
        self,
        *,
        expr: "PrometheusRuleSpecGroupsRulesExpr",
        alert: typing.Optional[builtins.str] = None,
        annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        for_: typing.Optional[builtins.str] = None,
        keep_firing_for: typing.Optional[builtins.str] = None,
        labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
        record: typing.Optional[builtins.str] = None,
    ) -> None:
        '''Rule describes an alerting or recording rule See Prometheus documentation: `alerting <https://www.prometheus.io/docs/prometheus/latest/configuration/alerting_rules/>`_ or `recording <https://www.prometheus.io/docs/prometheus/latest/configuration/recording_rules/#recording-rules>`_ rule.

        :param expr: expr defines the PromQL expression to evaluate.
        :param alert: alert defines the name of the alert. Must be a valid label value. Only one of ``record`` and ``alert`` must be set.
        :param annotations: annotations defines annotations to add to each alert. Only valid for alerting rules.
        :param for_: for defines how alerts are considered firing once they have been returned for this long.
        :param keep_firing_for: keep_firing_for defines how long an alert will continue firing after the condition that triggered it has cleared.
        :param labels: labels defines labels to add or overwrite.
        :param record: record defines the name of the time series to output to. Must be a valid metric name. Only one of ``record`` and ``alert`` must be set.

        :schema: PrometheusRuleSpecGroupsRules
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__d8483a3c5a74b74f51743333ba18801fdca22bbea1736b64f4502143941c7f55)
            check_type(argname="argument expr", value=expr, expected_type=type_hints["expr"])
            check_type(argname="argument alert", value=alert, expected_type=type_hints["alert"])
            check_type(argname="argument annotations", value=annotations, expected_type=type_hints["annotations"])
            check_type(argname="argument for_", value=for_, expected_type=type_hints["for_"])
            check_type(argname="argument keep_firing_for", value=keep_firing_for, expected_type=type_hints["keep_firing_for"])
            check_type(argname="argument labels", value=labels, expected_type=type_hints["labels"])
            check_type(argname="argument record", value=record, expected_type=type_hints["record"])
        self._values: typing.Dict[builtins.str, typing.Any] = {
            "expr": expr,
        }
        if alert is not None:
            self._values["alert"] = alert
        if annotations is not None:
            self._values["annotations"] = annotations
        if for_ is not None:
            self._values["for_"] = for_
        if keep_firing_for is not None:
            self._values["keep_firing_for"] = keep_firing_for
        if labels is not None:
            self._values["labels"] = labels
        if record is not None:
            self._values["record"] = record

    @builtins.property
    def expr(self) -> "PrometheusRuleSpecGroupsRulesExpr":
        '''expr defines the PromQL expression to evaluate.

        :schema: PrometheusRuleSpecGroupsRules#expr
        '''
        result = self._values.get("expr")
        assert result is not None, "Required property 'expr' is missing"
        return typing.cast("PrometheusRuleSpecGroupsRulesExpr", result)

    @builtins.property
    def alert(self) -> typing.Optional[builtins.str]:
        '''alert defines the name of the alert.

        Must be a valid label value.
        Only one of ``record`` and ``alert`` must be set.

        :schema: PrometheusRuleSpecGroupsRules#alert
        '''
        result = self._values.get("alert")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def annotations(
        self,
    ) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''annotations defines annotations to add to each alert.

        Only valid for alerting rules.

        :schema: PrometheusRuleSpecGroupsRules#annotations
        '''
        result = self._values.get("annotations")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def for_(self) -> typing.Optional[builtins.str]:
        '''for defines how alerts are considered firing once they have been returned for this long.

        :schema: PrometheusRuleSpecGroupsRules#for
        '''
        result = self._values.get("for_")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def keep_firing_for(self) -> typing.Optional[builtins.str]:
        '''keep_firing_for defines how long an alert will continue firing after the condition that triggered it has cleared.

        :schema: PrometheusRuleSpecGroupsRules#keep_firing_for
        '''
        result = self._values.get("keep_firing_for")
        return typing.cast(typing.Optional[builtins.str], result)

    @builtins.property
    def labels(self) -> typing.Optional[typing.Mapping[builtins.str, builtins.str]]:
        '''labels defines labels to add or overwrite.

        :schema: PrometheusRuleSpecGroupsRules#labels
        '''
        result = self._values.get("labels")
        return typing.cast(typing.Optional[typing.Mapping[builtins.str, builtins.str]], result)

    @builtins.property
    def record(self) -> typing.Optional[builtins.str]:
        '''record defines the name of the time series to output to.

        Must be a valid metric name.
        Only one of ``record`` and ``alert`` must be set.

        :schema: PrometheusRuleSpecGroupsRules#record
        '''
        result = self._values.get("record")
        return typing.cast(typing.Optional[builtins.str], result)

    def __eq__(self, rhs: typing.Any) -> builtins.bool:
        return isinstance(rhs, self.__class__) and rhs._values == self._values

    def __ne__(self, rhs: typing.Any) -> builtins.bool:
        return not (rhs == self)

    def __repr__(self) -> str:
        return "PrometheusRuleSpecGroupsRules(%s)" % ", ".join(
            k + "=" + repr(v) for k, v in self._values.items()
        )


class PrometheusRuleSpecGroupsRulesExpr(
    metaclass=jsii.JSIIMeta,
    jsii_type="nld_prometheusrule_comcoreosmonitoring.PrometheusRuleSpecGroupsRulesExpr",
):
    '''expr defines the PromQL expression to evaluate.

    :schema: PrometheusRuleSpecGroupsRulesExpr
    '''

    @jsii.member(jsii_name="fromNumber")
    @builtins.classmethod
    def from_number(cls, value: jsii.Number) -> "PrometheusRuleSpecGroupsRulesExpr":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__e3e31ad53a97090ebc472e6edd89659477b08cb1e61fe99b109e73534afdde65)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PrometheusRuleSpecGroupsRulesExpr", jsii.sinvoke(cls, "fromNumber", [value]))

    @jsii.member(jsii_name="fromString")
    @builtins.classmethod
    def from_string(cls, value: builtins.str) -> "PrometheusRuleSpecGroupsRulesExpr":
        '''
        :param value: -
        '''
        if __debug__:
            type_hints = cached_type_hints(_typecheckingstub__a755403e6022bbd49a67231717a81a1464e0c05f4b491cc500458dbbd6264ebd)
            check_type(argname="argument value", value=value, expected_type=type_hints["value"])
        return typing.cast("PrometheusRuleSpecGroupsRulesExpr", jsii.sinvoke(cls, "fromString", [value]))

    @builtins.property
    @jsii.member(jsii_name="value")
    def value(self) -> typing.Union[builtins.str, jsii.Number]:
        return typing.cast(typing.Union[builtins.str, jsii.Number], jsii.get(self, "value"))


__all__ = [
    "PrometheusRule",
    "PrometheusRuleProps",
    "PrometheusRuleSpec",
    "PrometheusRuleSpecGroups",
    "PrometheusRuleSpecGroupsRules",
    "PrometheusRuleSpecGroupsRulesExpr",
]

publication.publish()

def _typecheckingstub__56e3f5acc4b8da6e159a222dd5cfca7a1d2659fcb8a1cd63358ba2f2a28b840d(
    scope: _constructs_77d1e7e8.Construct,
    id: builtins.str,
    *,
    spec: typing.Union[PrometheusRuleSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__50eaf80107d2b0cc898c76c2509a5c1ec57cb19287c985d75a44d66c8a32a449(
    *,
    spec: typing.Union[PrometheusRuleSpec, typing.Dict[builtins.str, typing.Any]],
    metadata: typing.Optional[typing.Union[_cdk8s_d3d9af27.ApiObjectMetadata, typing.Dict[builtins.str, typing.Any]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__ad10219a49d43ebbc89e375185321d20989ca8c8253b625280b9da856944ce06(
    *,
    groups: typing.Optional[typing.Sequence[typing.Union[PrometheusRuleSpecGroups, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__8390fb3f1fadf65a6aab84660db6fa387c592c04357d8cee1f08c134a64dcb61(
    *,
    name: builtins.str,
    interval: typing.Optional[builtins.str] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    limit: typing.Optional[jsii.Number] = None,
    partial_response_strategy: typing.Optional[builtins.str] = None,
    query_offset: typing.Optional[builtins.str] = None,
    rules: typing.Optional[typing.Sequence[typing.Union[PrometheusRuleSpecGroupsRules, typing.Dict[builtins.str, typing.Any]]]] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__d8483a3c5a74b74f51743333ba18801fdca22bbea1736b64f4502143941c7f55(
    *,
    expr: PrometheusRuleSpecGroupsRulesExpr,
    alert: typing.Optional[builtins.str] = None,
    annotations: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    for_: typing.Optional[builtins.str] = None,
    keep_firing_for: typing.Optional[builtins.str] = None,
    labels: typing.Optional[typing.Mapping[builtins.str, builtins.str]] = None,
    record: typing.Optional[builtins.str] = None,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__e3e31ad53a97090ebc472e6edd89659477b08cb1e61fe99b109e73534afdde65(
    value: jsii.Number,
) -> None:
    """Type checking stubs"""
    pass

def _typecheckingstub__a755403e6022bbd49a67231717a81a1464e0c05f4b491cc500458dbbd6264ebd(
    value: builtins.str,
) -> None:
    """Type checking stubs"""
    pass
