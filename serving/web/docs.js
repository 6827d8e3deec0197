// The API reference (/docs): Swagger UI over this app's own /openapi.json. A file, not an inline
// script, so the page keeps the Content-Security-Policy of every other page (script-src 'self').
"use strict";
window.addEventListener("DOMContentLoaded", () => {
  window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null, // the default badge asks validator.swagger.io: nothing leaves this origin
    deepLinking: true,
  });
});
