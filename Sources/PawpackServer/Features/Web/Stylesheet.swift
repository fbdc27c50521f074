/// The one stylesheet: mobile first (a 390 px phone is the design width), large touch
/// targets, visible focus, and colours with enough contrast.
enum Stylesheet {
    static let css = """
    *,*::before,*::after{box-sizing:border-box}
    html{-webkit-text-size-adjust:100%}
    body{margin:0;font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#faf7f2}
    header.top{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;padding:.75rem 1rem;background:#fff;border-bottom:1px solid #e6e0d6}
    .brand{font-weight:700;font-size:1.15rem;color:#7a3e00;text-decoration:none}
    nav#app-nav{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;width:100%}
    nav#app-nav ul{display:flex;flex-wrap:wrap;gap:.25rem .75rem;list-style:none;margin:0;padding:0}
    nav#app-nav a{color:#1d4ed8}
    .soon{color:#5b6170}
    .badge{display:inline-block;margin-left:.25rem;padding:0 .35rem;border-radius:.5rem;background:#ece7de;color:#4b5060;font-size:.7rem;vertical-align:middle}
    main{max-width:34rem;margin:0 auto;padding:1rem}
    h1{font-size:1.6rem;line-height:1.2;margin:.5rem 0 1rem}
    h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
    a{color:#1d4ed8}
    section.card{background:#fff;border:1px solid #e6e0d6;border-radius:.75rem;padding:1rem;margin:0 0 1rem}
    section.card h2:first-child{margin-top:0}
    .field{display:flex;flex-direction:column;margin:0 0 .9rem}
    label{font-weight:600;margin-bottom:.25rem}
    input{font:inherit;padding:.65rem .75rem;border:1px solid #b8b2a7;border-radius:.5rem;background:#fff;width:100%;min-height:44px}
    .hint{color:#4b5060;margin-top:.25rem}
    .button{font:inherit;font-weight:600;display:inline-block;min-height:44px;padding:.6rem 1.1rem;border:0;border-radius:.5rem;background:#7a3e00;color:#fff;cursor:pointer;text-decoration:none}
    .button.secondary{background:#ece7de;color:#1d2330}
    .button.danger{background:#b42318}
    button.link{font:inherit;background:none;border:0;padding:.25rem;color:#1d4ed8;text-decoration:underline;cursor:pointer;min-height:44px}
    :focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
    .flash{background:#e7f6ec;border:1px solid #9bd3ae;padding:.6rem .8rem;border-radius:.5rem}
    .error{background:#fdecea;border:1px solid #f1a39a;padding:.6rem .8rem;border-radius:.5rem;color:#7a1c12}
    .actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
    article.mail{background:#fff;border:1px solid #e6e0d6;border-radius:.75rem;padding:1rem;margin:0 0 1rem}
    pre.mail-body{white-space:pre-wrap;word-break:break-all;font-size:.9rem}
    a.mail-link{word-break:break-all;overflow-wrap:anywhere}
    .muted{color:#4b5060}
    select{font:inherit;padding:.6rem .75rem;border:1px solid #b8b2a7;border-radius:.5rem;background:#fff;width:100%;min-height:44px}
    fieldset{border:1px solid #e6e0d6;border-radius:.5rem;margin:0 0 .9rem;padding:.5rem .75rem}
    label.check{display:flex;align-items:center;gap:.5rem;font-weight:400;min-height:44px}
    label.check input{width:auto;min-height:0}
    ul.pet-list{list-style:none;padding:0;margin:0 0 1rem}
    a.pet-summary{display:flex;align-items:center;gap:.75rem;padding:.6rem;margin:0 0 .5rem;background:#fff;border:1px solid #e6e0d6;border-radius:.75rem;color:inherit;text-decoration:none}
    .pet-name{font-weight:600}
    .thumb{width:56px;height:56px;border-radius:50%;object-fit:cover;flex:none}
    .thumb.placeholder{display:inline-flex;align-items:center;justify-content:center;background:#ece7de;font-weight:700}
    .gallery{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 .75rem}
    .gallery .photo{width:100%;max-width:100%;border-radius:.5rem;object-fit:cover}
    .gallery .photo:not(.profile){width:calc(50% - .25rem)}
    img.preview{display:block;max-width:100%;max-height:240px;margin-top:.5rem;border-radius:.5rem}
    img.preview:not([src]){display:none}
    .mode-puppy{background:#fff4d6;color:#6b4400}
    .mode-social{background:#dff3e4;color:#1d5b2c}
    form.inline{display:inline}
    .invitation{border-top:1px solid #e6e0d6;padding-top:.5rem}
    """
}
