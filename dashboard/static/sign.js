// Sign up or sign in: the form posts the name and password to the API, which answers a
// session cookie (HttpOnly: this script never sees it); then on to the owner's page.
(function () {
  "use strict";
  var form = document.getElementById("account-form");
  var error = document.getElementById("account-error");
  var path = form.dataset.action === "sign-up" ? "/api/v1/accounts" : "/api/v1/sessions";

  function said(data, status) {
    var detail = data && data.detail;
    if (Array.isArray(detail)) {
      return detail.map(function (d) { return d.loc.slice(1).join(".") + ": " + d.msg; }).join("; ");
    }
    return detail || ("HTTP " + status);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var body = {
      name: document.getElementById("account-name").value.trim(),
      password: document.getElementById("account-password").value,
    };
    fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (response) {
        return response.json().then(function (data) {
          if (!response.ok) { throw new Error(said(data, response.status)); }
          window.location.assign("/owner");
        });
      })
      .catch(function (failure) {
        error.textContent = failure.message;
        error.hidden = false;
      });
  });
})();
