from tests.support.service import (  # noqa: F401 - fixtures
    api_token,
    app,
    client,
    clock,
    fake_model,
    service_runtime,
    web,
    web_on,
)
