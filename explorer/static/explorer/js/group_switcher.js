// Choosing a group in the header switches to it at once (the Switch button stays for keyboards and no-script).

const select = document.querySelector("[data-testid=group-switcher]");
select?.addEventListener("change", () => select.form.requestSubmit());
