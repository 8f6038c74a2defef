from typing import Any, Callable, Generator, Tuple, TypeVar, Union, final

_T = TypeVar("_T")

@final
class PlanMethod:
    """PlanMethod(plan, runner): the method runner(obj._client, plan(obj, *args, **kwargs))."""

    def __new__(cls, plan: Callable[..., Any], runner: Callable[[Any, Any], Any]) -> PlanMethod: ...
    @property
    def plan(self) -> Callable[..., Any]: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def __get__(self, instance: Any, owner: Any = None, /) -> Any: ...

def run(client: Any, plan: Union[Generator[Any, Any, _T], Tuple[Any, Any, Any, Callable[[Any], _T], Any]]) -> _T:
    """Drive plan on a sync redis-py style client and return its result."""
def evalsha_loading(client: Any, script: Any, keys: Any, args: Any) -> Any:
    """EVALSHA of script on a sync client; SCRIPT LOAD and again on NOSCRIPT."""
def runner_setup(run_steps: Callable[[Any, Any], Any], response_error: type, noscript_error: type) -> None:
    """Hand over the step loop of generator plans and redis-py's two error classes."""
