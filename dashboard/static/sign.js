// Sign up or sign in: the form posts the name and password to the API, which answers a
// session cookie (HttpOnly: this script never sees it); then on to the owner's page.
(function () {
  "use strict";
  var form = document.getElementById("account-form");
  var error = document.getElementById("account-error");
  var path = form.dataset.action === "sign-up" ? "/accounts" : "/sessions";

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var body = {
      name: document.getElementById("account-name").value.trim(),
      password: document.getElementById("account-password").value,
    };
    window.arenaDom.api("POST", path, body)
      .then(function () { window.location.assign("/owner"); })
      .catch(function (failure) {
        error.textContent = failure.message;
        error.hidden = false;
      });
  });
})();
